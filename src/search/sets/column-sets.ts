import { type RawBuilder, sql } from 'kysely';
import { KIND_KEY, RATING_KEY } from './indexes.ts';
import { keyReaders, PostSets, type SetSource } from './tag-sets.ts';
import { CHANGED } from '../../db/schema/tag-changes.ts';

/**
 * The posts of each rating and of each kind of media, kept per process like the tag sets (a
 * bitmap each at a million posts: ~125 KB), so that `rating:` and `type:` are sets in the search
 * too. A key is a rating's place in the search's RATING_KEYS, or a kind of media's number (KIND_KEY). New posts are read by
 * id, and the change log names deleted posts and re-rated ones (migrations 003, 011); a kind
 * and an uploader never change.
 */

/** A SetSource over one column of posts: `key` the SQL of a post's key. */
function columnSource(key: RawBuilder<unknown>, changes: number): SetSource {
  return {
    changes,
    keys: async (db, dir) =>
      (
        await sql<{ id: number; count: number }>`SELECT ${key} AS id, count(*) AS count FROM posts GROUP BY ${key} ORDER BY count(*) ${sql.raw(dir)}`.execute(
          db,
        )
      ).rows.map((r) => ({ id: Number(r.id), count: Number(r.count) })),
    ...keyReaders((k) => sql`SELECT id AS post_id FROM posts WHERE ${key} = ${k}`),
    links: async (db, which) =>
      (await sql<{ post_id: number; key: number }>`SELECT id AS post_id, ${key} AS key FROM posts WHERE ${which(sql.ref('id'))}`.execute(db)).rows,
  };
}

/** The posts of each rating. */
export class RatingSets extends PostSets {
  constructor() {
    super(columnSource(RATING_KEY, CHANGED.rating | CHANGED.gone), { budget: 4 * 1024 * 1024 });
  }
}

/** The posts of each kind of media (still image, video, animated image). */
export class KindSets extends PostSets {
  constructor() {
    super(columnSource(KIND_KEY, CHANGED.gone), { budget: 4 * 1024 * 1024 });
  }
}

/**
 * Each post is in one uploader's set, an id list of 4 bytes a post at most (a prolific uploader's
 * bitmap takes less), so this budget a post keeps every uploader: at ten million posts a fixed 3 MB
 * left most users' `user:NAME` to the database.
 */
export const UPLOADER_BYTES_PER_POST = 4;

/** The posts of each uploader: a user's uploads come from memory for `user:NAME`. */
export class UploaderSets extends PostSets {
  constructor() {
    super(columnSource(sql.ref('uploader_id'), CHANGED.gone), { budget: 3 * 1024 * 1024, budgetPerPost: UPLOADER_BYTES_PER_POST });
  }
}
