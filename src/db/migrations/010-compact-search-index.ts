import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import { compactSearchIndex } from '../statistics.ts';

/** A title index filled before this (by the seeder, or by years of uploads) is merged once (see statistics.ts). */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await compactSearchIndex(db, dialect);
}
