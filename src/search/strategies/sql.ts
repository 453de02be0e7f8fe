/**
 * The SQL strategy: any Expr as a WHERE over posts, any order as an ORDER BY, on both engines.
 * It answers every query; the planner (plan.ts) prefers the in-memory strategies where they
 * apply. Totals are exact up to COUNT_CAP matches, and past that scaled from the share of
 * matches among the newest SAMPLE posts (said by `estimated`).
 */
import { type Kysely, type RawBuilder, type SqlBool, sql } from 'kysely';
import type { Database } from '../../db/engine.ts';
import type { DB } from '../../db/types.ts';
import { type Compiled, type Expr, type Interval, type NumField, type OrderKey, RANDOM_MODULUS, RANDOM_MULTIPLIER } from '../expr.ts';

/** Exact totals are counted up to this many matches; past it the total is an estimate. */
export const COUNT_CAP = 10_000;
/** Newest posts whose share of matches scales an estimate. */
const SAMPLE = 2_000;

/** How many tags a post has: one more than the spaces in its tag string (names have none), 0 for none. */
const TAG_COUNT = sql`(CASE WHEN posts.tag_string = '' THEN 0 ELSE length(posts.tag_string) - length(replace(posts.tag_string, ' ', '')) + 1 END)`;

const COLUMNS: Record<NumField, RawBuilder<unknown>> = {
  id: sql.ref('posts.id'),
  likes: sql.ref('posts.like_count'),
  favs: sql.ref('posts.favorite_count'),
  comments: sql.ref('posts.comment_count'),
  width: sql.ref('posts.width'),
  height: sql.ref('posts.height'),
  filesize: sql.ref('posts.file_size'),
  duration: sql.ref('posts.duration'),
  tagcount: TAG_COUNT,
  created: sql.ref('posts.created_at'),
};

const TRUE = sql<SqlBool>`1 = 1`;
const FALSE = sql<SqlBool>`1 = 0`;

function inInterval(column: RawBuilder<unknown>, r: Interval): RawBuilder<SqlBool> {
  const parts: RawBuilder<SqlBool>[] = [];
  if (r.lo !== -Infinity) parts.push(r.loOpen ? sql`${column} > ${r.lo}` : sql`${column} >= ${r.lo}`);
  if (r.hi !== Infinity) parts.push(r.hiOpen ? sql`${column} < ${r.hi}` : sql`${column} <= ${r.hi}`);
  // No bound: every post with a value (a null never matches a range).
  if (parts.length === 0) parts.push(sql`${column} IS NOT NULL`);
  return sql<SqlBool>`(${sql.join(parts, sql` AND `)})`;
}

/**
 * The Expr as a condition on a row of posts. Nulls never match, so NOT of a range holds for a
 * post without the value. `ratingIndex`: whether the (rating, likes) index may serve a rating (to
 * count, or in order of likes); in other orders it would have SQLite collect and sort every post
 * of the rating instead of walking the order's index.
 */
export function condition(db: Database, e: Expr, ratingIndex = true): RawBuilder<SqlBool> {
  const inner = (x: Expr) => condition(db, x, ratingIndex);
  switch (e.kind) {
    case 'all':
      return TRUE;
    case 'none':
      return FALSE;
    case 'tags':
      return e.ids.length === 1
        ? sql`EXISTS (SELECT 1 FROM post_tags t WHERE t.post_id = posts.id AND t.tag_id = ${e.ids[0]})`
        : sql`EXISTS (SELECT 1 FROM post_tags t WHERE t.post_id = posts.id AND ${db.oneOf(sql.ref('t.tag_id'), db.listParam(e.ids))})`;
    case 'num': {
      const ranges = sql<SqlBool>`(${sql.join(
        e.ranges.map((r) => inInterval(COLUMNS[e.field], r)),
        sql` OR `,
      )})`;
      // A post without the value (an image's duration) is in no range, and so in NOT of one. Only
      // that column can be null: the others stay plain comparisons, which an index can serve.
      return e.field === 'duration' ? sql<SqlBool>`COALESCE(${ranges}, ${FALSE})` : ranges;
    }
    case 'rating':
      return sql`${ratingIndex ? sql.ref('posts.content_rating') : db.notIndexed(sql.ref('posts.content_rating'))} IN (${sql.join(e.values)})`;
    case 'type':
      return sql`(${sql.join(
        e.values.map((t) => (t === 'gif' ? sql`(posts.media_type = 'image' AND posts.is_animated = 1)` : sql`posts.media_type = ${t}`)),
        sql` OR `,
      )})`;
    case 'uploader':
      return sql`posts.uploader_id = ${e.userId}`;
    case 'fav':
      return sql`EXISTS (SELECT 1 FROM favorites f WHERE f.post_id = posts.id AND f.user_id = ${e.userId})`;
    case 'pool':
      return sql`EXISTS (SELECT 1 FROM pool_posts pp WHERE pp.post_id = posts.id AND pp.pool_id = ${e.poolId})`;
    case 'pooled':
      return sql`EXISTS (SELECT 1 FROM pool_posts pp WHERE pp.post_id = posts.id)`;
    case 'parent':
      // False, not null, without a parent: NOT of it then holds (and the index still serves it).
      return sql`(posts.parent_id IS NOT NULL AND posts.parent_id = ${e.postId})`;
    case 'hasParent':
      return sql`posts.parent_id IS NOT NULL`;
    case 'hasChildren':
      return sql`EXISTS (SELECT 1 FROM posts c WHERE c.parent_id = posts.id)`;
    case 'title':
      // SQLite's trigram index of titles finds 3 or more characters without reading every title.
      return sql<SqlBool>`${db.titleContains(sql.ref('posts.id'), sql.ref('posts.title'), e.text)}`;
    case 'hash':
      return sql`${sql.ref(e.algo === 'md5' ? 'posts.md5' : 'posts.sha256')} = ${e.hex}`;
    case 'not':
      return sql`NOT (${inner(e.expr)})`;
    case 'and':
      return e.exprs.length === 0 ? TRUE : sql`(${sql.join(e.exprs.map(inner), sql` AND `)})`;
    case 'or':
      return e.exprs.length === 0 ? FALSE : sql`(${sql.join(e.exprs.map(inner), sql` OR `)})`;
  }
}

/** The column an order key sorts by; a post without a duration sorts as -1 (after every video in order:duration). */
function orderColumn(k: OrderKey, seed: number): RawBuilder<unknown> {
  switch (k.field) {
    case 'random':
      // Integers below 2^53 all along, so JavaScript computes the same (expr.ts randomRank); PostgreSQL needs bigint for it.
      return sql`(((CAST(posts.id AS bigint) + ${seed}) * ${RANDOM_MULTIPLIER}) % ${RANDOM_MODULUS})`;
    case 'duration':
      return sql`COALESCE(posts.duration, -1)`;
    case 'pool':
      return sql`(SELECT pp.position FROM pool_posts pp WHERE pp.pool_id = ${k.poolId ?? 0} AND pp.post_id = posts.id)`;
    default:
      return COLUMNS[k.field];
  }
}

/** ORDER BY of the order's keys. */
export const orderBy = (order: readonly OrderKey[], seed: number) =>
  sql.join(
    order.map((k) => sql`${orderColumn(k, seed)} ${sql.raw(k.dir)}`),
    sql`, `,
  );

/** The WHERE of a statement run within a budget: its guard first, the expression, and the cursor. */
export function where(db: Database, expr: Expr, before: Compiled['before'], guard: RawBuilder<SqlBool>, ratingIndex = true): RawBuilder<SqlBool> {
  const parts = [guard, condition(db, expr, ratingIndex)];
  if (before) parts.push(sql`(posts.created_at, posts.id) < (${before.created}, ${before.id})`);
  return sql<SqlBool>`${sql.join(parts, sql` AND `)}`;
}

export interface SearchPage {
  ids: number[];
  total: number;
  estimated: boolean;
}

/** A page of the query's posts (their ids) and the total, within `budgetMs` (else OverBudget). */
export async function sqlSearch(db: Database, c: Compiled, offset: number, limit: number, budgetMs: number): Promise<SearchPage> {
  return db.withinBudget(budgetMs, async (q, guard) => {
    const cond = where(db, c.expr, c.before, guard);
    const byLikes = c.order[0].field === 'likes';
    const page = await sql<{
      id: number;
    }>`SELECT posts.id FROM posts WHERE ${byLikes ? cond : where(db, c.expr, c.before, guard, false)} ORDER BY ${orderBy(c.order, c.seed)} LIMIT ${limit} OFFSET ${offset}`.execute(
      q,
    );
    const ids = page.rows.map((r) => Number(r.id));
    // A short page that starts inside the matches says how many there are.
    if (ids.length < limit && (ids.length > 0 || offset === 0)) return { ids, total: offset + ids.length, estimated: false };
    return { ids, ...(await total(q, cond)) };
  });
}

async function total(q: Kysely<DB>, cond: RawBuilder<SqlBool>): Promise<{ total: number; estimated: boolean }> {
  const capped = await sql<{ n: number }>`SELECT count(*) AS n FROM (SELECT 1 FROM posts WHERE ${cond} LIMIT ${COUNT_CAP + 1}) m`.execute(q);
  const n = Number(capped.rows[0]?.n ?? 0);
  if (n <= COUNT_CAP) return { total: n, estimated: false };
  const newest = sql`SELECT id FROM posts ORDER BY created_at DESC, id DESC LIMIT ${SAMPLE}`;
  const [sample, all] = await Promise.all([
    sql<{ n: number }>`SELECT count(*) AS n FROM posts WHERE posts.id IN (${newest}) AND ${cond}`.execute(q),
    sql<{ n: number }>`SELECT value AS n FROM counters WHERE name = 'posts'`.execute(q),
  ]);
  const posts = Number(all.rows[0]?.n ?? 0);
  const estimate = Math.round((Number(sample.rows[0]?.n ?? 0) / Math.max(1, Math.min(SAMPLE, posts))) * posts);
  return { total: Math.max(estimate, COUNT_CAP + 1), estimated: true };
}
