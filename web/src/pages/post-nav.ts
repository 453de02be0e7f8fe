// The post on screen and its neighbours, for the arrow keys. A post is asked for once, with up to
// NEIGHBOURS posts on each side in the list it was opened from (the browse page leaves its filters
// and ids; without them, upload order): those come whole, so stepping to one shows it from the
// cache, and the next request goes out only near the end of what is known. At one post a second
// that is a detail request every few posts, well inside the 50 a minute the API allows.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { cached, prime, toQuery } from '../api/client.ts';
import type { PostDetail } from '../api/types.ts';
import { navigate } from '../lib/router.ts';
import { useApi, type Loaded } from '../lib/use-api.ts';
import { loadContext, saveContext, type BrowseContext } from './browse-query.ts';

const NEIGHBOURS = 5;
/** Ask for more when fewer than this many posts are known ahead in either direction. */
const MARGIN = 2;

export interface Neighbours {
  prev?: string;
  next?: string;
}

const plainUrl = (id: string) => `/api/posts/${encodeURIComponent(id)}`;

/** The list the post belongs to: the saved one when it holds the post, else upload order. */
function listFor(id: string, safe: boolean): { ctx: BrowseContext; i: number } {
  const saved = loadContext();
  const i = saved ? saved.ids.indexOf(id) : -1;
  if (saved && i >= 0) return { ctx: saved, i };
  return { ctx: { filters: safe ? { contentRating: 'safe' } : {}, offset: null, ids: [id] }, i: 0 };
}

function neighboursUrl(id: string, safe: boolean): string {
  const { ctx, i } = listFor(id, safe);
  const at = ctx.offset === null ? undefined : ctx.offset + i;
  return `${plainUrl(id)}${toQuery({ ...ctx.filters, neighbours: NEIGHBOURS, at })}`;
}

/** Keeps every post of an answer in the cache, and its neighbours' order in the saved list. */
function absorb(answer: PostDetail, safe: boolean): void {
  const { neighbours, ...post } = answer;
  prime(plainUrl(post.id), post);
  if (!neighbours) return;
  for (const p of [...neighbours.before, ...neighbours.after]) prime(plainUrl(p.id), p);
  const { ctx, i } = listFor(post.id, safe);
  const ids = [...ctx.ids];
  let start = i;
  neighbours.before.forEach((p, k) => {
    if (start - 1 - k >= 0) ids[start - 1 - k] = p.id;
    else {
      ids.unshift(p.id);
      start++;
    }
  });
  neighbours.after.forEach((p, k) => (ids[start + 1 + k] = p.id));
  const added = start - i;
  const offset = ctx.offset === null ? null : Math.max(0, ctx.offset - added);
  saveContext({
    ...ctx,
    ids,
    offset,
    atStart: ctx.atStart || offset === 0 || (neighbours.before.length < NEIGHBOURS && start - neighbours.before.length === 0),
    atEnd: ctx.atEnd || (neighbours.after.length < NEIGHBOURS && start + neighbours.after.length === ids.length - 1),
  });
}

/**
 * The post: from the cache when it came as a neighbour, else one request that brings its
 * neighbours too. A post shown from the cache near the end of the known list asks, once, for more.
 */
export function usePost(id: string, safe: boolean): Loaded<PostDetail> & { neighbours: Neighbours } {
  const url = useMemo(() => (cached(plainUrl(id)) ? plainUrl(id) : neighboursUrl(id, safe)), [id, safe]);
  const loaded = useApi<PostDetail>(url);
  const [more, setMore] = useState<string | null>(null);
  const [, setAbsorbed] = useState(0);
  const extra = useApi<PostDetail>(more);
  const post = loaded.data;
  useEffect(() => setMore(null), [id]);
  useEffect(() => {
    if (!post) return;
    if (post.neighbours) absorb(post, safe);
    if (extra.data?.id === post.id) absorb(extra.data, safe);
    if (post.neighbours || extra.data) setAbsorbed((n) => n + 1);
    const { ctx, i } = listFor(post.id, safe);
    const short = (i < MARGIN && !ctx.atStart) || (ctx.ids.length - 1 - i < MARGIN && !ctx.atEnd);
    if (short && !post.neighbours && !extra.data) setMore(neighboursUrl(post.id, safe));
  }, [post, extra.data, safe]);
  // Read from the saved list while rendering: a post shown from the cache has its neighbours in
  // its first render, so an arrow key pressed at once already goes somewhere.
  const { ctx, i } = post ? listFor(post.id, safe) : { ctx: null, i: -1 };
  const neighbours: Neighbours = ctx ? { prev: ctx.ids[i - 1], next: ctx.ids[i + 1] } : {};
  return { ...loaded, neighbours };
}

function typing(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT|VIDEO)$/.test(el.tagName));
}

/** The left/right arrow keys bound to the neighbours. */
export function useArrowKeys(n: Neighbours): void {
  // The listener reads the latest neighbours through a ref, so a key pressed the moment the links
  // appear already works (an effect re-registered after render could still hold the old ones).
  const latest = useRef(n);
  latest.current = n;
  // A layout effect: registered before the page is painted. A plain effect runs a frame after the
  // links show, and a key pressed in that frame went nowhere.
  useLayoutEffect(() => {
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
}
