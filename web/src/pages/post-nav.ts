// The posts before and after this one, for the arrow keys: in the list the post was opened from
// (the browse page leaves its query and ids), or else by upload date among all posts.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api/client.ts';
import type { PostDetail, PostList } from '../api/types.ts';
import { navigate } from '../lib/router.ts';
import { loadContext, postsUrl } from './browse-query.ts';

export interface Neighbours {
  prev?: string;
  next?: string;
}

async function at(filters: Record<string, string | string[] | undefined>, offset: number): Promise<string | undefined> {
  if (offset < 0) return undefined;
  const list = await api<PostList>(postsUrl(filters, offset, 1));
  return list.posts[0]?.id;
}

async function find(post: PostDetail, safe: boolean): Promise<Neighbours> {
  const ctx = loadContext();
  const i = ctx ? ctx.ids.indexOf(post.id) : -1;
  if (ctx && i >= 0) {
    const [prev, next] = await Promise.all([
      ctx.ids[i - 1] ?? at(ctx.filters, ctx.offset + i - 1),
      ctx.ids[i + 1] ?? at(ctx.filters, ctx.offset + i + 1),
    ]);
    return { prev, next };
  }
  const t = Date.parse(post.createdAt);
  const rating = safe ? { contentRating: 'safe' } : {};
  const [prev, next] = await Promise.all([
    api<PostList>(postsUrl({ ...rating, sortBy: 'oldest', dateFrom: new Date(t + 1).toISOString() }, 0, 1)),
    api<PostList>(postsUrl({ ...rating, dateTo: new Date(t - 1).toISOString() }, 0, 1)),
  ]);
  return { prev: prev.posts[0]?.id, next: next.posts[0]?.id };
}

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT|VIDEO)$/.test(el.tagName));
}

/** Neighbouring post ids, and the left/right arrow keys bound to them. */
export function useNeighbours(post: PostDetail | undefined, safe: boolean): Neighbours {
  const [n, setN] = useState<Neighbours>({});
  useEffect(() => {
    setN({});
    if (!post) return;
    let live = true;
    find(post, safe).then((found) => live && setN(found), () => undefined);
    return () => { live = false; };
  }, [post?.id, safe]);
  // The listener reads the latest neighbours through a ref, so a key pressed the moment the links
  // appear already works (an effect re-registered after render could still hold the old ones).
  const latest = useRef(n);
  latest.current = n;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || typing(e.target)) return;
      const id = e.key === 'ArrowLeft' ? latest.current.prev : e.key === 'ArrowRight' ? latest.current.next : undefined;
      if (!id) return;
      e.preventDefault();
      navigate(`/posts/${id}`);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  return n;
}
