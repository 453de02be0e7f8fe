import type { ExpressionBuilder } from 'kysely';
import type { Db } from '../db/engine.ts';
import type { DB } from '../db/types.ts';
import type { BanInForce } from './bans.ts';

/**
 * The ban on a user that applies at `now`, if any. Read from the database on each write, not
 * cached, so a ban or a lift made through one instance holds on every other at once; a ban whose
 * `until` has passed no longer applies, with nothing to clean up.
 */
export async function banInForce(db: Db, userId: number, now: number): Promise<BanInForce | undefined> {
  return db.selectFrom('user_bans').select(['reason', 'until']).where('user_id', '=', userId).where(inForce(now)).executeTakeFirst();
}

/** The condition on user_bans rows that apply at `now` (a list joins them on it). */
export const inForce = (now: number) => (eb: ExpressionBuilder<DB, 'user_bans'>) => eb.or([eb('user_bans.until', 'is', null), eb('user_bans.until', '>', now)]);
