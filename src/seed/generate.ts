import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/types.ts';
import type { Database } from '../db/engine.ts';
import { followInsertedIds, forgetSeededEvents, postsPerTransaction } from '../db/queries/seeding.ts';
import { planPools } from './activity.ts';
import { renderBaseImages, virtualBaseImages, type BaseImage } from './images.ts';
import { MediaWriter } from './media-writer.ts';
import { WINDOW_MS, planComments, planTagging, reactionCounts, spreadTimes } from './plan.ts';
import { Random, Zipf, permutation } from './random.ts';
import type { BulkWriter } from './inserter.ts';
import { insertComments, insertPools, insertPosts, insertReactions, insertTags, insertUsers, type Phase } from './tables.ts';
import { seedPasswordHash, userJoinTimes } from './users.ts';
import type { Plan, ProgressFn, Resolved, SeedOptions } from './options.ts';

export type { SeedOptions } from './options.ts';
import { compactSearchIndex } from '../db/statistics.ts';

export interface SeedSummary {
  users: number;
  tags: number;
  posts: number;
  postTags: number;
  likes: number;
  favorites: number;
  comments: number;
  replies: number;
  pools: number;
  poolPosts: number;
  mediaFiles: number;
  mediaBytes: number;
}

/** Thrown when the target database already holds data; the command turns it into exit code 1. */
export class SeedRefused extends Error {}

/** Images rendered at most; posts beyond that reuse them, each with its own bytes. */
export const MAX_BASE_IMAGES = 200;

function checkWhole(name: string, value: number | undefined, min: number): void {
  if (value !== undefined && !(Number.isSafeInteger(value) && value >= min)) throw new RangeError(`${name} must be a whole number >= ${min} (got ${value})`);
}

/** Fills in the defaults; rejects values the generator cannot honour. */
export function resolveOptions(o: SeedOptions): Resolved {
  checkWhole('posts', o.posts, 1);
  checkWhole('users', o.users, 1);
  checkWhole('tags', o.tags, 1);
  checkWhole('tagsPerPost', o.tagsPerPost, 0);
  checkWhole('seed', o.seed, 0);
  if (!Number.isFinite(o.until)) throw new RangeError('until must be a time in epoch milliseconds');
  return {
    posts: o.posts,
    users: o.users ?? Math.max(10, Math.floor(o.posts / 50)),
    tags: o.tags ?? Math.min(50_000, Math.max(50, Math.floor(o.posts / 20))),
    tagsPerPost: o.tagsPerPost ?? 10,
    seed: o.seed ?? 1,
    until: o.until,
    start: o.until - WINDOW_MS,
    mediaDir: o.mediaDir,
  };
}

/** What the database already holds that seeding would collide with. */
export async function existingRows(db: Kysely<DB>): Promise<{ posts: number; users: number; tags: number }> {
  const count = async (table: 'posts' | 'users' | 'tags') =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { posts: await count('posts'), users: await count('users'), tags: await count('tags') };
}

async function assertEmpty(db: Kysely<DB>): Promise<void> {
  const found = await existingRows(db);
  if (found.posts + found.users + found.tags === 0) return;
  throw new SeedRefused(
    `The database already has ${found.posts} posts, ${found.users} users and ${found.tags} tags; seed only fills an empty ` +
      'database (rows it makes would clash with those). Point DATA_DIR or DATABASE_URL at an empty one, or empty this one first.',
  );
}

/** Everything counted before anything is written, so each stored counter is known exactly. */
export function makePlan(o: Resolved, onProgress: ProgressFn = () => {}): Plan {
  const steps = 4;
  onProgress('planning', 0, steps);
  const userCreated = userJoinTimes(o.users, o.start, o.until, new Random(o.seed, 'users/joined'));
  const postCreated = spreadTimes(o.posts, o.start, o.until, new Random(o.seed, 'posts/created'), 0.75);
  onProgress('planning', 1, steps);
  const tagging = planTagging(postCreated, o.tags, o.tagsPerPost, o.start, new Random(o.seed, 'tags'));
  onProgress('planning', 2, steps);

  const rng = new Random(o.seed, 'reactions');
  const popularity = permutation(o.posts, rng); // rank -> post: how much attention each post gets
  const zipf = new Zipf(o.posts, 1);
  const popular = () => popularity[zipf.sample(rng)];
  const popularOrAny = () => (rng.chance(0.5) ? popular() : rng.int(o.posts));
  const likes = reactionCounts(o.posts, 5 * o.posts, o.users, popular, rng);
  const favorites = reactionCounts(o.posts, o.posts, o.users, popularOrAny, rng);
  const commentsPerPost = reactionCounts(o.posts, o.posts, Number.MAX_SAFE_INTEGER, popularOrAny, rng);
  onProgress('planning', 3, steps);

  const talkers = permutation(o.users, rng);
  const talkerRank = new Zipf(o.users, 1);
  const comments = planComments(commentsPerPost, postCreated, userCreated, o.until, () => talkers[talkerRank.sample(rng)], rng);
  onProgress('planning', steps, steps);
  return { userCreated, postCreated, tagging, likes, favorites, comments, commentsPerPost };
}

/**
 * Fills an empty database with a synthetic board using multi-row inserts that work on SQLite and
 * PostgreSQL alike: users and tags in one transaction, then posts (see postsPerTransaction), then
 * everything else in one. A failure after the first commit leaves a partly seeded database, and
 * says so. Images are rendered before any transaction starts; their files are written by a worker
 * thread while rows are inserted. `bulk`, when given, writes the rows instead of the INSERTs, on
 * the connection of db's transactions (see BulkWriter).
 */
export async function seedDatabase(
  db: Database,
  options: SeedOptions,
  onProgress: ProgressFn = () => {},
  bulk: BulkWriter | null = null,
): Promise<SeedSummary> {
  const o = resolveOptions(options);
  await assertEmpty(db);
  const plan = makePlan(o, onProgress);
  const bases = await baseImages(o, onProgress);
  const writer = o.mediaDir
    ? new MediaWriter(
        o.mediaDir,
        bases.map((b) => ({ png: b.png!, thumb: b.thumb! })),
        (n) => onProgress('media files', n, o.posts),
      )
    : null;
  const phase: Phase = { o, plan, bases, writer, onProgress, postsPerTransaction: postsPerTransaction(db), bulk };
  let started = false;
  try {
    const people = await db.transaction().execute(async (trx) => {
      await assertEmpty(trx);
      return { users: await insertUsers(trx, phase, seedPasswordHash(new Random(o.seed, 'password'))), tags: await insertTags(trx, phase) };
    });
    started = true;
    const posts = await insertPosts(db, phase);
    const activity = await db.transaction().execute(async (trx) => {
      const rest = await insertActivity(trx, phase);
      await followInsertedIds(db, trx, ['users', 'posts', 'tags', 'comments', 'pools']);
      return rest;
    });
    await forgetSeededEvents(db);
    await writer?.close();
    // The title index grew a post at a time: one merge now makes every search cheaper.
    await compactSearchIndex(db);
    return { ...people, ...posts, ...activity, mediaFiles: writer?.files ?? 0, mediaBytes: writer?.bytes ?? 0 };
  } catch (err) {
    await writer?.abort();
    if (!started) throw err;
    throw new Error(`seeding stopped part way, leaving a partly seeded database: empty it before seeding again (${(err as Error).message})`, { cause: err });
  }
}

async function baseImages(o: Resolved, onProgress: ProgressFn): Promise<BaseImage[]> {
  const count = Math.min(o.posts, MAX_BASE_IMAGES);
  const rng = new Random(o.seed, 'images');
  if (!o.mediaDir) return virtualBaseImages(count, rng);
  return renderBaseImages(count, rng, (done) => onProgress('images', done, count));
}

async function insertActivity(trx: Transaction<DB>, phase: Phase) {
  const { o, plan } = phase;
  const likes = await insertReactions(trx, phase, 'likes', plan.likes);
  const favorites = await insertReactions(trx, phase, 'favorites', plan.favorites);
  const comments = await insertComments(trx, phase);
  const pools = planPools(plan.postCreated, plan.userCreated, o.until, seededPicker(o), new Random(o.seed, 'pools'));
  const poolPosts = await insertPools(trx, phase, pools);
  const replies = plan.comments.parent.reduce((n, parent) => n + (parent > 0 ? 1 : 0), 0);
  return { likes, favorites, comments, replies, pools: pools.length, poolPosts };
}

function seededPicker(o: Resolved): () => number {
  const rng = new Random(o.seed, 'pools/creators');
  const order = permutation(o.users, rng);
  const zipf = new Zipf(o.users, 1);
  return () => order[zipf.sample(rng)];
}
