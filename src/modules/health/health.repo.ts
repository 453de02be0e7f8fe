import { sql } from 'kysely';
import type { Db } from '../../db/engine.ts';

/** Runs the smallest statement there is: resolves when the database answers, throws when it does not. */
export async function ping(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
