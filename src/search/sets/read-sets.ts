/** The sets a query reads from the tables instead of the kept ones, and the kept ones brought up to the data version. */
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { Database } from '../../db/engine.ts';
import { coalescedReads } from '../../db/coalesce.ts';
import type { Expr } from '../expr.ts';
import { KIND_KEY, KINDS_OF, RATING_KEY, RATING_KEYS, type SetIndexes, type SetKind } from './indexes.ts';

/** Posts read from the database for one query: sets the process does not keep, by kind and key. */
export type Fetched = Map<string, number[]>;
export const keyOf = (kind: SetKind, id: number) => `${kind}:${id}`;

/** Where each kind of set is read from: its table, the SQL of its key, and the column of its posts. */
const SOURCES: Record<SetKind, { from: RawBuilder<unknown>; key: RawBuilder<unknown>; post: string }> = {
  tags: { from: sql.table('post_tags'), key: sql.ref('tag_id'), post: 'post_id' },
  fav: { from: sql.table('favorites'), key: sql.ref('user_id'), post: 'post_id' },
  uploader: { from: sql.table('posts'), key: sql.ref('uploader_id'), post: 'id' },
  pool: { from: sql.table('pool_posts'), key: sql.ref('pool_id'), post: 'post_id' },
  rating: { from: sql.table('posts'), key: RATING_KEY, post: 'id' },
  kind: { from: sql.table('posts'), key: KIND_KEY, post: 'id' },
  word: { from: sql`title_words JOIN title_vocab ON title_vocab.word = title_words.word`, key: sql.ref('title_vocab.id'), post: 'title_words.post_id' },
};

/** The keys of the kept sets a rating or type leaf reads. */
export const ratingKeys = (e: Extract<Expr, { kind: 'rating' }>) => e.values.map((v) => RATING_KEYS.indexOf(v));
export const kindKeys = (e: Extract<Expr, { kind: 'type' }>) => [...new Set(e.values.flatMap((v) => KINDS_OF[v]))];

/** The sets of the leaves not kept in memory, each as one text of ids from its table's index. */
export async function fetchSets(db: Database, e: Expr, indexes: SetIndexes): Promise<Fetched> {
  const wanted = new Map<SetKind, Set<number>>();
  const want = (kind: SetKind, id: number) => wanted.set(kind, (wanted.get(kind) ?? new Set()).add(id));
  const walk = (x: Expr): void => {
    if (x.kind === 'tags') for (const id of x.ids) if (!indexes.tags.has(id)) want('tags', id);
    // A rating or kind with no posts when the sets were read is not kept: its posts since are read here.
    if (x.kind === 'rating') for (const k of ratingKeys(x)) if (!indexes.ratings.has(k)) want('rating', k);
    if (x.kind === 'type') for (const k of kindKeys(x)) if (!indexes.kinds.has(k)) want('kind', k);
    if (x.kind === 'fav' || (x.kind === 'uploader' && !indexes.uploaders?.has(x.userId))) want(x.kind, x.userId);
    if (x.kind === 'pool') want('pool', x.poolId);
    if (x.kind === 'title') for (const id of x.words ?? []) if (!indexes.words?.has(id)) want('word', id);
    if (x.kind === 'not') walk(x.expr);
    if (x.kind === 'and' || x.kind === 'or') x.exprs.forEach(walk);
  };
  walk(e);
  const out: Fetched = new Map();
  for (const [kind, keys] of wanted) {
    const found = await SET_READS[kind](db, [...keys]);
    for (const k of keys) {
      const ids = found.get(k);
      if (ids) out.set(keyOf(kind, k), ids);
    }
  }
  return out;
}

/** The ids of each key's set, from its table's index; searches asked at once read theirs together (coalescedReads). */
const SET_READS = Object.fromEntries(
  Object.entries(SOURCES).map(([kind, { from, key, post }]) => [
    kind,
    coalescedReads(async (db, keys: number[]) => {
      const rows = await sql<{ k: number; ids: string | null }>`SELECT ${key} AS k, ${db.joinedText(sql.ref(post))} AS ids FROM ${from}
        WHERE ${db.oneOf(key, db.listParam(keys))} GROUP BY ${key}`.execute(db);
      return new Map(rows.rows.map((r) => [Number(r.k), r.ids ? r.ids.split(',').map(Number) : []]));
    }),
  ]),
) as Record<SetKind, (db: Kysely<DB>, keys: number[]) => Promise<Map<number, number[]>>>;

/** Brings every kept set up to the data version; whether ids follow dates. */
export async function current(db: Database, indexes: SetIndexes): Promise<boolean> {
  const { version } = indexes;
  const [follows] = await Promise.all([
    indexes.posts.refreshAt(db, version),
    indexes.tags.current(db, version),
    indexes.ratings.current(db, version),
    indexes.kinds.current(db, version),
    indexes.uploaders?.current(db, version),
    indexes.words?.current(db, version),
  ]);
  return follows;
}
