import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import { fillItems, installItemTriggers } from '../../modules/posts/list-item.ts';

/** posts.item_head and item_tail: each post's list item but its counts (modules/posts/list-item.ts), kept by triggers. */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema.alterTable('posts').addColumn('item_head', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('posts').addColumn('item_tail', 'text', (c) => c.notNull().defaultTo('')).execute();
  await installItemTriggers(db, dialect);
  await fillItems(db, dialect);
}
