import type { Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import { dropHistograms } from '../statistics.ts';

/** A SQLite database analyzed before this keeps its row counts and loses the histograms (see statistics.ts). */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  if (dialect === 'sqlite') await dropHistograms(db);
}
