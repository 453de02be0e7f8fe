import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB } from '../db/types.ts';

/** A ban as the 403 of a banned user's write shows it. */
export interface BanInForce {
  reason: string;
  until: number | null;
}

/**
 * The ban on a user that applies at `now`, if any. Read from the database on each write, not
 * cached, so a ban or a lift made through one instance holds on every other at once; a ban whose
 * `until` has passed no longer applies, with nothing to clean up.
 */
export async function banInForce(db: Kysely<DB>, userId: number, now: number): Promise<BanInForce | undefined> {
  return db.selectFrom('user_bans').select(['reason', 'until']).where('user_id', '=', userId).where(inForce(now)).executeTakeFirst();
}

/** The condition on user_bans rows that apply at `now` (a list joins them on it). */
export const inForce = (now: number) => (eb: ExpressionBuilder<DB, 'user_bans'>) => eb.or([eb('user_bans.until', 'is', null), eb('user_bans.until', '>', now)]);

export const banEnd = (until: number | null): string => (until === null ? 'permanent' : `until ${new Date(until).toISOString()}`);

export const banMessage = (ban: BanInForce): string => `Your account is banned (${banEnd(ban.until)}): ${ban.reason}`;

/** The `ban` field of that 403. */
export const banJson = (ban: BanInForce) => ({ reason: ban.reason, until: ban.until === null ? null : new Date(ban.until).toISOString() });
