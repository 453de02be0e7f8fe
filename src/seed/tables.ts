import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import { DistinctUsers, momentAfter, type PoolPlan } from './activity.ts';
import type { ProgressFn, Plan, Resolved } from './options.ts';
import type { BaseImage } from './images.ts';
import { type BulkWriter, Inserter } from './inserter.ts';
import type { MediaJob } from './media-files.ts';
import type { MediaWriter } from './media-writer.ts';
import { commentText } from './names.ts';
import { PostRows } from './posts.ts';
import { toTagString } from '../modules/posts/tag-string.ts';
import { Random } from './random.ts';
import { userRows } from './users.ts';

/** What every table writer gets. */
export interface Phase {
  o: Resolved;
  plan: Plan;
  bases: BaseImage[];
  writer: MediaWriter | null;
  onProgress: ProgressFn;
  /** How many posts go into one transaction (see postsPerTransaction in db/queries/seeding.ts). */
  postsPerTransaction: number;
  /** Writes the rows instead of INSERTs when given (PostgreSQL COPY for the benchmark). */
  bulk: BulkWriter | null;
}

type Trx = Transaction<DB>;

export async function insertUsers(trx: Trx, { o, plan, onProgress, bulk }: Phase, passwordHash: string): Promise<number> {
  const users = new Inserter(trx, 'users', bulk);
  for (const row of userRows(plan.userCreated, o.until, passwordHash, new Random(o.seed, 'users'))) {
    if (users.add(row)) await users.flush();
  }
  await users.flush();
  onProgress('users', users.written, o.users);
  return users.written;
}

export async function insertTags(trx: Trx, { plan, onProgress, bulk }: Phase): Promise<number> {
  const { names, postCount, createdAt } = plan.tagging;
  const tags = new Inserter(trx, 'tags', bulk);
  for (let i = 0; i < names.length; i++) {
    if (tags.add({ id: i + 1, name: names[i], post_count: postCount[i], created_at: createdAt[i] })) await tags.flush();
  }
  await tags.flush();
  onProgress('tags', tags.written, names.length);
  return tags.written;
}

/** Posts with their tag links, in transactions of phase.postsPerTransaction posts. */
export async function insertPosts(db: Kysely<DB>, phase: Phase): Promise<{ posts: number; postTags: number }> {
  const { o, plan } = phase;
  const rows = new PostRows(
    {
      seed: o.seed,
      postCreated: plan.postCreated,
      userCreated: plan.userCreated,
      likes: plan.likes,
      favorites: plan.favorites,
      comments: plan.commentsPerPost,
      lastCommented: lastCommentTimes(o.posts, plan.comments),
      bases: phase.bases,
    },
    new Random(o.seed, 'posts'),
  );
  const total = { posts: 0, postTags: 0 };
  for (let from = 0; from < o.posts; from += phase.postsPerTransaction) {
    const to = Math.min(o.posts, from + phase.postsPerTransaction);
    const done = await db.transaction().execute((trx) => insertPostRange(trx, phase, rows, from, to));
    total.posts += done.posts;
    total.postTags += done.postTags;
  }
  return total;
}

/** Each post's newest comment time from the plan (0: none), written with the post (posts.last_commented_at). */
function lastCommentTimes(posts: number, comments: { post: Int32Array; time: Float64Array }): Float64Array {
  const last = new Float64Array(posts);
  for (let i = 0; i < comments.post.length; i++) last[comments.post[i]] = Math.max(last[comments.post[i]], comments.time[i]);
  return last;
}

/** Posts from..to-1; each batch's media files are handed to the writer before its rows go in. */
async function insertPostRange(trx: Trx, phase: Phase, rows: PostRows, from: number, to: number) {
  const { offsets, tagIds, names } = phase.plan.tagging;
  const posts = new Inserter(trx, 'posts', phase.bulk);
  const links = new Inserter(trx, 'post_tags', phase.bulk);
  let jobs: MediaJob[] = [];
  const flush = async () => {
    await phase.writer?.write(jobs);
    jobs = [];
    await posts.flush(); // before the links that refer to them
    await links.flush();
    phase.onProgress('posts', from + posts.written, phase.o.posts);
    // SQLite calls never leave the microtask queue; let the media writer's replies in.
    await new Promise((resolve) => setImmediate(resolve));
  };
  for (let i = from; i < to; i++) {
    const { row, job } = rows.row(i);
    jobs.push(job);
    const tagNames: string[] = [];
    for (let j = offsets[i]; j < offsets[i + 1]; j++) tagNames.push(names[tagIds[j] - 1]);
    let full = posts.add({ ...row, tag_string: toTagString(tagNames) });
    for (let j = offsets[i]; j < offsets[i + 1]; j++) full = links.add({ post_id: i + 1, tag_id: tagIds[j], created_at: row.created_at }) || full;
    if (full) await flush();
  }
  await flush();
  return { posts: posts.written, postTags: links.written };
}

/** Likes or favourites: counts[i] distinct users on post i, each after the post and the user existed. */
export async function insertReactions(trx: Trx, { o, plan, onProgress, bulk }: Phase, table: 'likes' | 'favorites', counts: Int32Array): Promise<number> {
  const rng = new Random(o.seed, table);
  const users = new DistinctUsers(o.users, rng);
  const out = new Inserter(trx, table, bulk);
  for (let p = 0; p < o.posts; p++) {
    for (const u of users.pick(counts[p])) {
      const created_at = momentAfter(plan.postCreated[p], plan.userCreated[u], o.until, rng);
      if (out.add({ user_id: u + 1, post_id: p + 1, created_at })) {
        await out.flush();
        onProgress(table, p + 1, o.posts);
      }
    }
  }
  await out.flush();
  onProgress(table, o.posts, o.posts);
  return out.written;
}

export async function insertComments(trx: Trx, { o, plan, onProgress, bulk }: Phase): Promise<number> {
  const { post, user, time, parent, replies } = plan.comments;
  const rng = new Random(o.seed, 'comments/text');
  const out = new Inserter(trx, 'comments', bulk);
  for (let i = 0; i < post.length; i++) {
    const row = {
      id: i + 1,
      post_id: post[i] + 1,
      user_id: user[i] + 1,
      parent_id: parent[i] || null,
      content: commentText(rng, parent[i] > 0),
      reply_count: replies[i],
      created_at: time[i],
    };
    if (out.add(row)) {
      await out.flush();
      onProgress('comments', out.written, post.length);
    }
  }
  await out.flush();
  onProgress('comments', out.written, post.length);
  return out.written;
}

export async function insertPools(trx: Trx, { onProgress, bulk }: Phase, pools: PoolPlan[]): Promise<number> {
  const rows = new Inserter(trx, 'pools', bulk);
  const members = new Inserter(trx, 'pool_posts', bulk);
  pools.forEach((p, i) =>
    rows.add({
      id: i + 1,
      creator_id: p.creator + 1,
      name: p.name,
      description: p.description,
      is_public: p.isPublic ? 1 : 0,
      post_count: p.posts.length,
      created_at: p.createdAt,
      updated_at: p.updatedAt,
    }),
  );
  await rows.flush();
  pools.forEach((p, i) => p.posts.forEach((post, j) => members.add({ pool_id: i + 1, post_id: post + 1, position: j + 1, added_at: p.addedAt[j] })));
  await members.flush();
  onProgress('pools', pools.length, pools.length);
  return members.written;
}
