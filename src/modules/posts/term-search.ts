import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import { containsInsensitive, ftsPhrase, listParam, oneOf, usesTitleIndex, type DialectName } from '../../db/dialect.ts';
import { idList, itemsByIds, linksStart, tagLinks, type Items } from './posts.repo.ts';
import type { NewestOrder } from './newest-order.ts';
import type { Count } from './count-cache.ts';
import { usesOnly, type PostFilter } from './posts.query.ts';

/** Newest title matches read to count (exactly when there are fewer) or to estimate their share. */
const SHARE = 200;

/**
 * One search term, newest first: the most common search. Its matches are the posts whose title
 * contains it and, when a tag has that name, the tag's posts; the general query unites both sets
 * before sorting them, which costs seconds when the word is also a big tag. When newer posts have
 * higher ids (posts are dated when uploaded; NewestOrder checks it), both sets can be read newest
 * first and only as far as the page: the top ids of each, merged. Titles come from the FTS5
 * trigram index on SQLite (terms of 3+ characters) and from PostgreSQL's own choice of the id
 * index or the trigram index. Otherwise, or with any other filter, this returns null and the
 * general query answers.
 */
export async function searchOneTerm(
  db: Kysely<DB>, dialect: DialectName, order: NewestOrder, f: PostFilter, offset: number, limit: number, known?: Count, version?: number,
): Promise<{ rows: Items; count: Count } | null> {
  if (!usesOnly(f, 'terms') || f.terms.length !== 1) return null;
  if (dialect === 'sqlite' && !usesTitleIndex(dialect, f.terms[0].text)) return null;
  if (!(await order.refreshAt(db, version))) return null;
  const { text, tagId } = f.terms[0];
  const need = offset + limit;
  // With the total known (count-cache.ts), only the page's matches are read.
  const newestTitled = await titleMatches(db, dialect, text, known ? need : Math.max(SHARE, need), order.newestId);
  const tagged = tagId === null ? [] : (await tagLinks(db, dialect, 'desc', tagId, linksStart('desc'), need)).ids;
  const page = mergeDescending(newestTitled.slice(0, need), tagged).slice(offset, offset + limit);
  const count = known ?? (await termCount(db, dialect, order, f.terms[0], newestTitled.slice(0, SHARE)));
  return { rows: await itemsByIds(db, dialect, page), count };
}

/** The term's total from its newest title matches (`sample`, up to SHARE of them) and its tag's count. */
async function termCount(db: Kysely<DB>, dialect: DialectName, order: NewestOrder, term: PostFilter['terms'][number], sample: number[]): Promise<Count> {
  // The newest title matches that also have the tag are in both sets: counted once.
  const alsoTagged = term.tagId === null || sample.length === 0 ? 0 : await countTagged(db, dialect, term.tagId, sample);
  // Every title match is in the sample: the union is exact.
  if (sample.length < SHARE) return { total: term.tagCount + sample.length - alsoTagged, estimated: false };
  // Title matches are as dense overall as among the newest posts; those without the tag add to it.
  const density = SHARE / Math.max(1, order.newerThanId(sample[SHARE - 1]) + 1);
  const titledOnly = density * order.size * (1 - alsoTagged / SHARE);
  return { total: Math.max(term.tagCount + Math.round(titledOnly), SHARE), estimated: true };
}

/** Ids below the newest that PostgreSQL's first title window spans at least (200 a match wanted); each further window is eight times wider. */
const TITLE_WINDOW = 20_000;

/**
 * Ids of the newest `count` posts whose title contains `text`, newest first (`newestId`: the
 * highest post id). SQLite reads the FTS5 trigram index newest first. PostgreSQL looks in
 * windows of the newest ids: the trigram index and the id range are ANDed as bitmaps, so only
 * the window's candidates are read (a word in 0.7% of titles: 2.9 ms, against 20 ms walking the
 * primary key and testing every title, and 183 ms sorting all its matches); a window that holds
 * too few widens until it covers every post. `id + 0` keeps the planner off the key walk.
 */
export async function titleMatches(db: Kysely<DB>, dialect: DialectName, text: string, count: number, newestId: number, firstWindow = Math.max(TITLE_WINDOW, count * 200)): Promise<number[]> {
  if (dialect === 'sqlite') {
    // One text of ids, not a row a match (rows cost ~1.5 us each to hand over).
    const [row] = (await sql<{ ids: string | null }>`SELECT group_concat(id) AS ids FROM (SELECT rowid AS id FROM posts_fts WHERE posts_fts MATCH ${ftsPhrase(text)} ORDER BY rowid DESC LIMIT ${count})`.execute(db)).rows;
    return idList(row).sort((a, b) => b - a);
  }
  for (let span = firstWindow; ; span *= 8) {
    const matching = db.selectFrom('posts').select('id').where(containsInsensitive(dialect, sql.ref('title'), text));
    const bound = newestId - span;
    const rows = await (bound > 0 ? matching.where('id', '>', bound) : matching).orderBy(sql`id + 0`, 'desc').limit(count).execute();
    if (rows.length >= count || bound <= 0) return rows.map((r) => r.id);
  }
}

/** How many of `ids` have the tag. */
async function countTagged(db: Kysely<DB>, dialect: DialectName, tagId: number, ids: number[]): Promise<number> {
  return Number((await sql<{ n: number }>`SELECT count(*) AS n FROM post_tags WHERE tag_id = ${tagId} AND ${oneOf(dialect, sql.ref('post_id'), listParam(dialect, ids))}`.execute(db)).rows[0].n);
}

/** Two descending id lists merged into one, each id once. */
export function mergeDescending(a: number[], b: number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const next = j >= b.length || (i < a.length && a[i] >= b[j]) ? a[i++] : b[j++];
    if (out[out.length - 1] !== next) out.push(next);
  }
  return out;
}
