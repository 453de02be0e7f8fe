import type { Db, Tx } from '../../db/engine.ts';

/** The user of that name (any case) with their role, or undefined. */
export function findUserByName(trx: Tx, username: string) {
  return trx.selectFrom('users').select(['id', 'username', 'username_lower', 'role']).where('username_lower', '=', username.toLowerCase()).executeTakeFirst();
}

export interface BanValues {
  reason: string;
  until: number | null;
  banned_by: number;
  created_at: number;
}

/** Sets the user's ban, replacing the one they have. */
export async function upsertBan(trx: Tx, userId: number, values: BanValues): Promise<void> {
  await trx
    .insertInto('user_bans')
    .values({ user_id: userId, ...values })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
    .execute();
}

const banQuery = (db: Db) =>
  db
    .selectFrom('user_bans')
    .innerJoin('users as u', 'u.id', 'user_bans.user_id')
    .leftJoin('users as b', 'b.id', 'user_bans.banned_by')
    .select(['u.username', 'user_bans.reason', 'user_bans.until', 'user_bans.created_at', 'b.username as by']);

export type BanRow = Awaited<ReturnType<ReturnType<typeof banQuery>['executeTakeFirstOrThrow']>>;

/** The user's ban, with their name and who set it; throws when they have none. */
export function banOfUser(db: Db, userId: number): Promise<BanRow> {
  return banQuery(db).where('user_bans.user_id', '=', userId).executeTakeFirstOrThrow();
}

/** The ban of the user of that name (any case) that applies at `now`, or undefined. */
export function banInForce(db: Db, username: string, now: number): Promise<BanRow | undefined> {
  return banQuery(db)
    .where('u.username_lower', '=', username.toLowerCase())
    .where((eb) => eb.or([eb('user_bans.until', 'is', null), eb('user_bans.until', '>', now)]))
    .executeTakeFirst();
}

/** Deletes the user's ban (an expired one too); what it said, or undefined when there was none. */
export function deleteBan(trx: Tx, userId: number) {
  return trx.deleteFrom('user_bans').where('user_id', '=', userId).returning(['reason', 'until']).executeTakeFirst();
}
