import type { Database } from '../../db/engine.ts';
import { titleWordsContaining } from '../../db/queries/title-search.ts';
import { VersionedMap } from '../../core/versioned-map.ts';
import { arrayBytes, stringBytes } from '../../core/heap-estimate.ts';

/** Beyond this many distinct title words containing a text, its posts are not read as the words' sets (SQL reads titles). */
export const MAX_WORDS = 16;

/** A title word, how many posts it is in, and its id in title_vocab. */
type TermWord = [word: string, posts: number, id: number];

/**
 * Titles are split into words on spaces (db/schema/title-words.ts), so a title contains a text
 * without spaces exactly when one of its words does. The words are found by a trigram index of
 * them, which needs 3 characters; ASCII only, as SQLite lowers only ASCII letters, so a word's
 * case then agrees with the title's on both engines.
 */
const ONE_WORD = /^[\x21-\x7e]{3,}$/;

/**
 * Per process: the title words that contain each recent text, with their post counts, as of one
 * data version (every upload, title edit and delete moves it, so nothing older is ever used).
 * Repeated searches skip the trigram lookup, a large part of such a request's time.
 */
export class TermWords {
  private readonly terms: VersionedMap<TermWord[]>;

  constructor(max = 5_000) {
    this.terms = new VersionedMap(max);
  }

  /** Bytes held, estimated: each text known, and its words (an array of [word, posts, id] each). */
  bytes(): number {
    return this.terms.bytes((words) => arrayBytes(words.length) + words.reduce((sum, w) => sum + arrayBytes(3) + stringBytes(w[0]), 0));
  }

  /** The words containing `text` (more than MAX_WORDS: MAX_WORDS + 1 of them), read unless known at `version`. */
  async of(db: Database, text: string, version?: number): Promise<TermWord[]> {
    const seen = version === undefined ? undefined : this.terms.get(text, version);
    if (seen) return seen;
    const words = await readTermWords(db, text);
    if (version !== undefined) this.terms.set(text, words, version);
    return words;
  }

  /** The ids of the words containing `text` (lower case), or null when they cannot stand for the titles: see ONE_WORD and MAX_WORDS. */
  async idsOf(db: Database, text: string, version?: number): Promise<number[] | null> {
    if (!ONE_WORD.test(text)) return null;
    const words = await this.of(db, text, version);
    return words.length > MAX_WORDS ? null : words.map((w) => w[2]);
  }
}

/** The title words containing `text`, with their post counts (more than MAX_WORDS: MAX_WORDS + 1 of them). */
async function readTermWords(db: Database, text: string): Promise<TermWord[]> {
  return JSON.parse((await titleWordsContaining(db, text, MAX_WORDS + 1)) ?? '[]') as TermWord[];
}
