import type { Insertable } from 'kysely';
import type { Db } from '../../db/engine.ts';
import type { InvitesTable } from '../../db/types.ts';

/** An invites row to insert. */
export type NewInvite = Insertable<InvitesTable>;

/** Invites with the names of who made them and who used them. */
function invitesWithNames(db: Db) {
  return db
    .selectFrom('invites')
    .leftJoin('users as creator', 'creator.id', 'invites.created_by')
    .leftJoin('users as user', 'user.id', 'invites.used_by')
    .select([
      'invites.id',
      'invites.note',
      'invites.created_at',
      'invites.expires_at',
      'invites.used_at',
      'creator.username as creator',
      'user.username as user',
    ]);
}

/** Adds an invite; returns its id. */
export async function insertInvite(db: Db, invite: NewInvite) {
  return db.insertInto('invites').values(invite).returning('id').executeTakeFirstOrThrow();
}

/** That invite with the names of its maker and user (throws when there is none). */
export async function getInviteWithNames(db: Db, id: number) {
  return invitesWithNames(db).where('invites.id', '=', id).executeTakeFirstOrThrow();
}

/** A page of invites with their names, newest first. */
export async function listInvitesWithNames(db: Db, limit: number, offset: number) {
  return invitesWithNames(db).orderBy('invites.id', 'desc').limit(limit).offset(offset).execute();
}

/** How many invites there are (`n`). */
export async function countInvites(db: Db) {
  return db
    .selectFrom('invites')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
}

/** Deletes the invite if it is unused; returns how many rows went (0 or 1). */
export async function deleteUnusedInvite(db: Db, id: number): Promise<number> {
  const gone = await db.deleteFrom('invites').where('id', '=', id).where('used_at', 'is', null).executeTakeFirst();
  return Number(gone.numDeletedRows);
}

/** The invite's id if it exists, or undefined. */
export async function findInviteId(db: Db, id: number) {
  return db.selectFrom('invites').select('id').where('id', '=', id).executeTakeFirst();
}

/** When the invite of that code hash was used and expires, or undefined when there is none. */
export async function findInviteByCode(db: Db, codeHash: string) {
  return db.selectFrom('invites').select(['used_at', 'expires_at']).where('code_hash', '=', codeHash).executeTakeFirst();
}

/** Marks the invite of that code hash used by the user if it is unused and unexpired at `now`; returns how many rows changed (0 or 1). */
export async function spendInviteCode(trx: Db, codeHash: string, userId: number, now: number): Promise<number> {
  const result = await trx
    .updateTable('invites')
    .set({ used_by: userId, used_at: now })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
