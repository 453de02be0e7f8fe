import type { Kysely } from 'kysely';
import type { DB } from './types.ts';
import { prepared } from './prepared.ts';

const counterRow = prepared((db, p: { name: string }) => db.selectFrom('counters').select('value').where('name', '=', p.name));

/**
 * A counter kept by triggers (migration 004): 'posts', 'posts:<rating>', or 'version', the data
 * version every upload, edit and delete moves (what in-memory structures check on use).
 */
export async function counter(db: Kysely<DB>, name: string): Promise<number> {
  const [row] = await counterRow(db, { name });
  return Number(row?.value ?? 0);
}
