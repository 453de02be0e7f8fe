import { sql } from 'kysely';
import { moveCount } from '../../db/counters.ts';
import type { Db, Tx } from '../../db/engine.ts';

function commentQuery(db: Db) {
  return db
    .selectFrom('comments')
    .innerJoin('users', 'users.id', 'comments.user_id')
    .select([
      'comments.id',
      'comments.post_id',
      'comments.parent_id',
      'comments.content',
      'comments.created_at',
      'comments.reply_count',
      'users.username',
      'users.avatar_path',
    ]);
}
export type CommentRow = Awaited<ReturnType<ReturnType<typeof commentQuery>['execute']>>[number];

/** The comment with its author's name and avatar; throws when there is none. */
export function commentById(db: Db, id: number): Promise<CommentRow> {
  return commentQuery(db).where('comments.id', '=', id).executeTakeFirstOrThrow();
}

/** One page of a post's comments, oldest first, and how many it has. */
export async function commentsPage(db: Db, postId: number, limit: number, offset: number) {
  const [rows, total] = await Promise.all([
    commentQuery(db).where('comments.post_id', '=', postId).orderBy('comments.created_at').orderBy('comments.id').limit(limit).offset(offset).execute(),
    db.selectFrom('comments').select(sql<number>`count(*)`.as('n')).where('post_id', '=', postId).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/** Whether the post exists. */
export async function postExists(db: Db, postId: number): Promise<boolean> {
  const post = await db.selectFrom('posts').select('id').where('id', '=', postId).executeTakeFirst();
  return post !== undefined;
}

/**
 * Counts a new comment on the post and moves its last comment time on to `now`; false when there
 * is no such post. It locks the post's row, so comment writes on one post take turns.
 */
export async function countNewComment(trx: Tx, postId: number, now: number): Promise<boolean> {
  const post = await moveCount(trx, 'posts', 'comment_count', postId, 1)
    .set({ last_commented_at: sql<number>`CASE WHEN last_commented_at > ${now} THEN last_commented_at ELSE ${now} END` })
    .returning('id')
    .executeTakeFirst();
  return post !== undefined;
}

/** The comment's id and post, or undefined (a reply's parent). */
export function findParent(trx: Tx, id: number) {
  return trx.selectFrom('comments').select(['id', 'post_id']).where('id', '=', id).executeTakeFirst();
}

/** Moves a comment's reply count by `delta`. */
export async function moveReplyCount(trx: Tx, id: number, delta: number): Promise<void> {
  await moveCount(trx, 'comments', 'reply_count', id, delta).execute();
}

export interface NewCommentRow {
  postId: number;
  userId: number;
  parentId: number | null;
  content: string;
  now: number;
}

/** Adds a comment with no replies; its id. */
export async function insertComment(trx: Tx, c: NewCommentRow): Promise<number> {
  const row = await trx
    .insertInto('comments')
    .values({ post_id: c.postId, user_id: c.userId, parent_id: c.parentId, content: c.content, reply_count: 0, created_at: c.now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The post the comment is on, or undefined when there is no such comment. */
export async function findCommentPost(trx: Tx, id: number): Promise<number | undefined> {
  const found = await trx.selectFrom('comments').select('post_id').where('id', '=', id).executeTakeFirst();
  return found?.post_id;
}

/** Locks the post's row for the rest of the transaction (an update that changes nothing), as countNewComment does. */
export async function lockPost(trx: Tx, postId: number): Promise<void> {
  await trx
    .updateTable('posts')
    .set((eb) => ({ comment_count: eb.ref('comment_count') }))
    .where('id', '=', postId)
    .execute();
}

/** The comment as a delete needs it (author, parent, what it said), or undefined. */
export function findComment(trx: Tx, id: number) {
  return trx.selectFrom('comments').select(['id', 'post_id', 'user_id', 'parent_id', 'content']).where('id', '=', id).executeTakeFirst();
}

/** How many comments the thread of this comment holds: it and its replies, at every depth. */
export async function countThread(trx: Tx, id: number): Promise<number> {
  const thread = await trx
    .withRecursive('thread(id)', (db) =>
      db
        .selectFrom('comments')
        .select('id')
        .where('id', '=', id)
        .unionAll(db.selectFrom('comments').innerJoin('thread', 'thread.id', 'comments.parent_id').select('comments.id')),
    )
    .selectFrom('thread')
    .select(sql<number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(thread.n);
}

/** Deletes the comment; its replies go with it (the foreign key cascades). */
export async function deleteThread(trx: Tx, id: number): Promise<void> {
  await trx.deleteFrom('comments').where('id', '=', id).execute();
}

/** Takes `removed` comments off the post's count and sets its last comment time from the comments left. */
export async function uncountComments(trx: Tx, postId: number, removed: number): Promise<void> {
  await moveCount(trx, 'posts', 'comment_count', postId, -removed)
    .set({ last_commented_at: sql<number | null>`(SELECT MAX(created_at) FROM comments WHERE post_id = ${postId})` })
    .execute();
}

/** The name of the user with that id, or undefined. */
export async function findUsername(trx: Tx, id: number): Promise<string | undefined> {
  const user = await trx.selectFrom('users').select('username').where('id', '=', id).executeTakeFirst();
  return user?.username;
}
