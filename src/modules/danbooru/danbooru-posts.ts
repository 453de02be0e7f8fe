import { MEDIA_PREFIX } from '../../core/media-paths.ts';
import { sql } from 'kysely';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { toId } from '../../core/ids.ts';
import type { PostsService } from '../posts/post-listing.ts';
import type { PostListQuery } from '../posts/posts.schemas.ts';
import { danbooruPost, type DanbooruPostObject, type PostRow } from './danbooru-post-object.ts';
import { pagingOf } from './danbooru-paging.ts';
import { ourQuery } from './danbooru-query.ts';
import { TagCategories } from './danbooru-tag-categories.ts';

export interface DanbooruListQuery {
  tags?: string;
  limit?: string | number;
  page?: string | number;
}

/**
 * Danbooru's post reads, on our list: the ids come from GET /api/posts's own search (so nothing
 * it would not show appears here), then one statement reads the page's rows; the categories of
 * their tags come from memory (TagCategories).
 */
export function danbooruPosts(deps: Deps, posts: PostsService) {
  const { db } = deps;
  const tagCategories = new TagCategories();

  /** The page's post ids, in our list's order, as /api/posts gives them to an anonymous viewer. */
  const idsOf = async (q: PostListQuery): Promise<number[]> => {
    const page = JSON.parse(await posts.list(q)) as { posts: { id: string }[]; totalPosts: number };
    return page.posts.map((p) => Number(p.id));
  };

  /** The objects of the given posts, in the order of `ids`; a post missing (or hidden) is left out. */
  const objects = async (ids: number[], origin: string): Promise<DanbooruPostObject[]> => {
    if (ids.length === 0) return [];
    // Danbooru's URLs are absolute: this server's own /media/ unless media have a public address.
    const mediaRoot = deps.config.mediaPublicUrl || origin + MEDIA_PREFIX;
    const rows: PostRow[] = await db
      .selectFrom('posts')
      .leftJoin('users', 'users.id', 'posts.uploader_id')
      .select([
        'posts.id',
        'posts.uploader_id',
        'posts.content_rating',
        'posts.media_type',
        'posts.file_size',
        'posts.width',
        'posts.height',
        'posts.duration',
        'posts.md5',
        'posts.file_path',
        'posts.thumb_path',
        'posts.preview_path',
        'posts.like_count',
        'posts.favorite_count',
        'posts.created_at',
        'posts.updated_at',
        'posts.tag_string',
        'users.username as uploader_name',
        // Most posts have no comment: no lookup for them.
        sql<number | null>`CASE WHEN posts.comment_count = 0 THEN NULL ELSE (SELECT MAX(c.created_at) FROM comments c WHERE c.post_id = posts.id) END`.as(
          'last_commented_at',
        ),
      ])
      .where('posts.id', 'in', ids)
      .execute();
    const categories = await tagCategories.current(db);
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => {
      const row = byId.get(id);
      return row && visible(row)
        ? [danbooruPost({ ...row, created_at: Number(row.created_at), updated_at: Number(row.updated_at) }, mediaRoot, categories)]
        : [];
    });
  };

  return {
    /** GET /posts.json. */
    list: async (q: DanbooruListQuery, origin: string) => {
      const paging = pagingOf(q);
      const query = await ourQuery(db, q.tags ?? '', paging.cursor);
      const ids = await idsOf({ q: query, offset: paging.offset, limit: paging.limit });
      // a<id> reads upwards from the id; Danbooru answers newest first all the same.
      if (paging.cursor && 'above' in paging.cursor) ids.reverse();
      return objects(ids, origin);
    },
    /** GET /counts/posts.json. */
    count: async (tags: string) => {
      const page = JSON.parse(await posts.list({ q: await ourQuery(db, tags, null), limit: 1 })) as { totalPosts: number };
      return page.totalPosts;
    },
    /** GET /posts/<id>.json: the post, when /api/posts would show it. */
    get: async (rawId: string, origin: string) => {
      const id = toId(rawId);
      const [post] = id === null ? [] : await objects(await idsOf({ q: `id:${id}`, limit: 1 }), origin);
      if (!post) throw new AppError(404, `Couldn't find Post with 'id'=${rawId}`);
      return post;
    },
    /** GET /explore/posts/popular.json: the span's posts by score, then newest. */
    popular: async (q: { date?: string; scale?: 'day' | 'week' | 'month'; limit?: string | number; page?: string | number }, origin: string) => {
      const paging = pagingOf({ limit: q.limit, page: q.page });
      if (paging.cursor) throw new AppError(400, 'page: popular posts are paged by number');
      const [from, to] = span(q.date ?? new Date(deps.clock.now()).toISOString().slice(0, 10), q.scale ?? 'day');
      return objects(await idsOf({ dateFrom: from, dateTo: to, sortBy: 'most_liked', offset: paging.offset, limit: paging.limit }), origin);
    },
  };
}

/**
 * Whether the viewer may see the post. Every post is public today; a post hidden later returns
 * false here, and then neither its object, URLs nor md5 are given.
 */
const visible = (_row: PostRow) => true;

const DAY = 86_400_000;

/** The first and last day (YYYY-MM-DD) of the day, week (from Monday) or calendar month of `date`. */
export function span(date: string, scale: 'day' | 'week' | 'month'): [string, string] {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(date) ? Date.parse(`${date}T00:00:00.000Z`) : NaN;
  if (Number.isNaN(ms)) throw new AppError(400, `date: '${date}' is not a date (YYYY-MM-DD)`);
  const d = new Date(ms);
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  if (scale === 'day') return [day(ms), day(ms)];
  if (scale === 'week') {
    const monday = ms - ((d.getUTCDay() + 6) % 7) * DAY;
    return [day(monday), day(monday + 6 * DAY)];
  }
  const first = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const last = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - DAY;
  return [day(first), day(last)];
}

export type DanbooruPostsService = ReturnType<typeof danbooruPosts>;
