import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * An index covering a post's kind of media (media_type, is_animated). The search keeps the posts
 * of each kind (search/sets/column-sets.ts) and reads them by scanning every post, once for the
 * counts and once a kind: without it each was a scan of the whole posts table, a wide row a post
 * (on a board larger than memory, from the disk); the ratings' already scan posts_rating_likes.
 */
export async function up(db: Kysely<any>, _dialect: DialectName): Promise<void> {
  await db.schema.createIndex('posts_kind').on('posts').columns(['media_type', 'is_animated']).execute();
}
