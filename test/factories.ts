import { plainTags } from '../src/modules/tags/tag-name-rules.ts';
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB, NewPost } from '../src/db/types.ts';
import { insertPost } from '../src/modules/posts/posts.repo.ts';
import { contentPath } from '../src/core/media-paths.ts';

/** Factories write rows the way the app does, counters included, so tests know every answer. */

export async function createUser(
  db: Kysely<DB>,
  u: { username: string; role?: string; tier?: string; bio?: string; createdAt?: number; lastSeenAt?: number | null; avatarPath?: string | null },
): Promise<number> {
  const row = await db
    .insertInto('users')
    .values({
      username: u.username,
      username_lower: u.username.toLowerCase(),
      email: null,
      password_hash: 'not-a-real-hash',
      role: u.role ?? 'user',
      tier: u.tier ?? 'free',
      bio: u.bio ?? '',
      avatar_path: u.avatarPath ?? null,
      created_at: u.createdAt ?? Date.parse('2025-01-01T00:00:00.000Z'),
      last_seen_at: u.lastSeenAt ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export interface PostSpec {
  uploaderId: number;
  title?: string;
  description?: string;
  tags?: string[];
  rating?: 'safe' | 'sketchy' | 'unsafe';
  /** Likes counted on the row (no like rows behind them). */
  likeCount?: number;
  createdAt: number;
  mediaType?: 'image' | 'video';
  width?: number;
  height?: number;
  fileSize?: number;
}

/** A posts row as an upload would write it (tags apart). */
export function postRow(p: PostSpec): NewPost {
  const sha = randomBytes(32).toString('hex');
  const video = p.mediaType === 'video';
  return {
    uploader_id: p.uploaderId,
    title: p.title ?? 'untitled',
    description: p.description ?? '',
    content_rating: p.rating ?? 'safe',
    media_type: p.mediaType ?? 'image',
    mime: video ? 'video/mp4' : 'image/png',
    file_size: p.fileSize ?? 1000,
    width: p.width ?? 640,
    height: p.height ?? 480,
    duration: video ? 5 : null,
    is_animated: 0,
    sha256: sha,
    md5: randomBytes(16).toString('hex'),
    phash: null,
    file_path: contentPath('originals', sha, video ? 'mp4' : 'png'),
    thumb_path: contentPath('thumbs', sha, 'webp'),
    preview_path: null,
    like_count: p.likeCount ?? 0,
    comment_count: 0,
    favorite_count: 0,
    created_at: p.createdAt,
    updated_at: p.createdAt,
  };
}

export async function createPost(db: Kysely<DB>, p: PostSpec): Promise<number> {
  return insertPost(db, postRow(p), plainTags(p.tags ?? []));
}

async function react(db: Kysely<DB>, table: 'likes' | 'favorites', userId: number, postId: number, at: number) {
  const column = table === 'likes' ? 'like_count' : 'favorite_count';
  await db.transaction().execute(async (trx) => {
    await trx.insertInto(table).values({ user_id: userId, post_id: postId, created_at: at }).execute();
    await trx
      .updateTable('posts')
      .set((eb) => ({ [column]: eb(column, '+', 1) }) as any)
      .where('id', '=', postId)
      .execute();
  });
}

export const addLike = (db: Kysely<DB>, userId: number, postId: number, at: number) => react(db, 'likes', userId, postId, at);
export const addFavorite = (db: Kysely<DB>, userId: number, postId: number, at: number) => react(db, 'favorites', userId, postId, at);

export async function addComment(
  db: Kysely<DB>,
  c: { postId: number; userId: number; content?: string; parentId?: number | null; createdAt: number },
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const { id } = await trx
      .insertInto('comments')
      .values({ post_id: c.postId, user_id: c.userId, parent_id: c.parentId ?? null, content: c.content ?? 'nice', reply_count: 0, created_at: c.createdAt })
      .returning('id')
      .executeTakeFirstOrThrow();
    await trx
      .updateTable('posts')
      .set((eb) => ({ comment_count: eb('comment_count', '+', 1) }))
      .where('id', '=', c.postId)
      .execute();
    if (c.parentId) {
      await trx
        .updateTable('comments')
        .set((eb) => ({ reply_count: eb('reply_count', '+', 1) }))
        .where('id', '=', c.parentId)
        .execute();
    }
    return id;
  });
}

export async function createPool(
  db: Kysely<DB>,
  p: { creatorId: number; name: string; description?: string; isPublic?: boolean; postIds?: number[]; at: number },
): Promise<number> {
  const postIds = p.postIds ?? [];
  return db.transaction().execute(async (trx) => {
    const { id } = await trx
      .insertInto('pools')
      .values({
        creator_id: p.creatorId,
        name: p.name,
        description: p.description ?? '',
        is_public: p.isPublic === false ? 0 : 1,
        post_count: postIds.length,
        created_at: p.at,
        updated_at: p.at,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    if (postIds.length) {
      await trx
        .insertInto('pool_posts')
        .values(postIds.map((post_id, i) => ({ pool_id: id, post_id, position: i + 1, added_at: p.at })))
        .execute();
    }
    return id;
  });
}
