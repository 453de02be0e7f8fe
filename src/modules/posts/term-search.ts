import type { Database } from '../../db/engine.ts';
import { sql } from 'kysely';
import { idList, itemsByIds, linksStart, tagLinks, type Items } from './posts.repo.ts';
import type { NewestOrder } from './newest-order.ts';
import type { Count } from './count-cache.ts';
import type { TagSets } from './tag-sets.ts';
import { preparedOnDatabase } from '../../db/prepared.ts';
import { newestTitlesContaining, titleIndexesServe, titleWordsContaining, titleWordsServe } from '../../db/queries/title-search.ts';
import { usesOnly, type PostFilter } from './posts.query.ts';
import { VersionedMap } from './versioned-map.ts';
import type { WordSets } from './title-word-sets.ts';

/** Newest title matches read to count (exactly when there are fewer) or to estimate their share. */
const SHARE = 200;

/**
 * One search term, newest first: the most common search. Its matches are the posts whose title
 * contains it and, when a tag has that name, the tag's posts; the general query unites both sets
 * before sorting them, which costs seconds when the word is also a big tag. When newer posts have
 * higher ids (posts are dated when uploaded; NewestOrder checks it), both sets can be read newest
 * first and only as far as the page: the top ids of each, merged. Titles come from the title
 * words (terms of 3+ characters; see titleMatches), or from PostgreSQL's trigram index of titles;
 * the tag's posts from its set when this process keeps one, else from its links. Otherwise, or
 * with any other filter, this returns null and the general query answers.
 */
export async function searchOneTerm(
  db: Database,
  order: NewestOrder,
  f: PostFilter,
  offset: number,
  limit: number,
  known?: Count,
  version?: number,
  memory: { tagSets?: TagSets; words?: TermWords; wordSets?: WordSets } = {},
): Promise<{ rows: Items; count: Count } | null> {
  if (!usesOnly(f, 'terms') || f.terms.length !== 1) return null;
  if (!titleIndexesServe(db, f.terms[0].text)) return null;
  if (!(await order.refreshAt(db, version))) return null;
  const { text, tagId } = f.terms[0];
  const need = offset + limit;
  // With the total known (count-cache.ts), only the page's matches are read.
  const titled = await titleMatches(db, text, known ? need : Math.max(SHARE, need), order.newestId, {
    termWords: memory.words,
    wordSets: memory.wordSets,
    version,
  });
  // The tag's newest posts: from its set when this process keeps one (tag-sets.ts), else its links.
  const { tagSets } = memory;
  const kept = tagId !== null && tagSets && (await tagSets.current(db, version)).has(tagId) ? tagSets : null;
  const tagged = tagId === null ? [] : kept ? kept.page([tagId], 'desc', 0, need) : (await tagLinks(db, 'desc', tagId, linksStart('desc'), need)).ids;
  const page = mergeDescending(titled.ids.slice(0, need), tagged).slice(offset, offset + limit);
  const count = known ?? (await termCount(db, order, f.terms[0], titled.ids.slice(0, SHARE), titled.total, kept));
  return { rows: await itemsByIds(db, page), count };
}

/**
 * The term's total from its newest title matches (`sample`, up to SHARE of them), the number of
 * titles with it when known (`titledTotal`), and its tag's count.
 */
async function termCount(
  db: Database,
  order: NewestOrder,
  term: PostFilter['terms'][number],
  sample: number[],
  titledTotal: number | null,
  kept: TagSets | null,
): Promise<Count> {
  // The newest title matches that also have the tag are in both sets: counted once.
  const alsoTagged =
    term.tagId === null || sample.length === 0 ? 0 : kept ? sample.filter(kept.tester([term.tagId!])).length : await countTagged(db, term.tagId, sample);
  // Every title match is in the sample: the union is exact.
  if (sample.length < SHARE) return { total: term.tagCount + sample.length - alsoTagged, estimated: false };
  // Every title match counted, and no tag to share them with: exact too.
  if (titledTotal !== null && term.tagId === null) return { total: titledTotal, estimated: false };
  // Title matches are as dense overall as among the newest posts (unless counted); those without the tag add to it.
  const titled = titledTotal ?? (SHARE / Math.max(1, order.newerThanId(sample[SHARE - 1]) + 1)) * order.size;
  const titledOnly = titled * (1 - alsoTagged / SHARE);
  return { total: Math.max(term.tagCount + Math.round(titledOnly), SHARE), estimated: true };
}

/** Ids below the newest that PostgreSQL's first title window spans at least (200 a match wanted); each further window is eight times wider. */
const TITLE_WINDOW = 20_000;

/**
 * Ids of the newest `count` posts whose title contains `text`, newest first (`newestId`: the
 * highest post id), and how many titles contain it when that is known exactly.
 *
 * The words of titles that contain the term (title_vocab: a trigram lookup among the
 * distinct words), then each word's posts newest first from title_words (or from this process's
 * word sets), merged. A term found in more than MAX_WORDS distinct words reads the
 * trigram index of every title instead: SQLite's FTS5 index; PostgreSQL, and there terms of
 * under 3 characters too (a trigram index finds nothing shorter), looks in windows of the newest
 * ids: the trigram index and the id range are ANDed as bitmaps, so only the window's candidates
 * are read (for a word in a few titles in a hundred, far less than walking the primary key and
 * testing every title, or sorting all its matches); a window that holds too few widens until it
 * covers every post (see newestTitlesContaining).
 */
export async function titleMatches(
  db: Database,
  text: string,
  count: number,
  newestId: number,
  {
    firstWindow = Math.max(TITLE_WINDOW, count * 200),
    termWords,
    wordSets,
    version,
  }: { firstWindow?: number; termWords?: TermWords; wordSets?: WordSets; version?: number } = {},
): Promise<{ ids: number[]; total: number | null }> {
  if (titleWordsServe(db, text)) {
    const words = termWords ? await termWords.of(db, text, version) : await readTermWords(db, text);
    if (words.length <= MAX_WORDS) {
      // Each word's newest posts: from its set when this process keeps one (title-word-sets.ts), else its index.
      const sets = wordSets && words.length > 0 ? await wordSets.current(db, version) : null;
      const newest = async (word: string, id: number) =>
        sets?.has(id) ? sets.page([id], 'desc', 0, count) : idList((await newestWithWord(db, { word, limit: count }))[0]).sort((x, y) => y - x);
      let ids: number[] = [];
      for (const [word, , id] of words) ids = mergeDescending(ids, await newest(word, id));
      return { ids: ids.slice(0, count), total: words.length <= 1 ? (words[0]?.[1] ?? 0) : null };
    }
  }
  return { ids: await newestTitlesContaining(db, text, count, newestId, firstWindow), total: null };
}

/** Beyond this many distinct title words containing a term, the trigram index of every title is read instead. */
const MAX_WORDS = 16;

/** A title word, how many posts it is in, and its id in title_vocab. */
type TermWord = [word: string, posts: number, id: number];

/**
 * Per process: the title words that contain each recent term, with their post counts, as of one
 * data version (every upload, title edit and delete moves it, so nothing older is ever used).
 * Repeated searches skip the trigram lookup, a large part of such a request's time.
 */
export class TermWords {
  private readonly terms: VersionedMap<TermWord[]>;

  constructor(max = 5_000) {
    this.terms = new VersionedMap(max);
  }

  /** The words containing `text` (more than MAX_WORDS: MAX_WORDS + 1 of them), read unless known at `version`. */
  async of(db: Database, text: string, version?: number): Promise<TermWord[]> {
    const seen = version === undefined ? undefined : this.terms.get(text, version);
    if (seen) return seen;
    const words = await readTermWords(db, text);
    if (version !== undefined) this.terms.set(text, words, version);
    return words;
  }
}

/** The title words containing `text`, with their post counts (more than MAX_WORDS: MAX_WORDS + 1 of them). */
async function readTermWords(db: Database, text: string): Promise<TermWord[]> {
  return JSON.parse((await titleWordsContaining(db, text, MAX_WORDS + 1)) ?? '[]') as TermWord[];
}

/** The newest `limit` posts whose title has the word, as one text of ids, highest first. */
const newestWithWord = preparedOnDatabase(
  (db, p: { word: string; limit: number }) => sql<{ ids: string | null }>`
  SELECT ${db.joinedText(sql.ref('post_id'))} AS ids FROM (SELECT post_id FROM title_words WHERE word = ${p.word} ORDER BY post_id DESC LIMIT ${p.limit}) w`,
);

/** How many of `ids` have the tag. */
async function countTagged(db: Database, tagId: number, ids: number[]): Promise<number> {
  return Number(
    (
      await sql<{
        n: number;
      }>`SELECT count(*) AS n FROM post_tags WHERE tag_id = ${tagId} AND ${db.oneOf(sql.ref('post_id'), db.listParam(ids))}`.execute(db)
    ).rows[0].n,
  );
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
