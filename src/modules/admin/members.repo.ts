import { sql } from 'kysely';
import { inForce } from '../../core/bans.repo.ts';
import type { Database } from '../../db/engine.ts';
import type { MemberListQuery } from './members.schemas.ts';

/** The users the list's search and role filter keep. */
function membersOf(db: Database, q: MemberListQuery) {
  return db
    .selectFrom('users')
    .$if(q.search !== undefined, (qb) => qb.where(db.containsInsensitive(sql.ref('users.username_lower'), q.search!)))
    .$if(q.role !== undefined, (qb) => qb.where('users.role', '=', q.role!));
}

/** A page of those users, newest or by name, each with the reason and end of its ban in force at `now` (null: none). */
export async function listMembersPage(db: Database, q: MemberListQuery, now: number, limit: number, offset: number) {
  const byName = q.sort === 'name';
  return (
    membersOf(db, q)
      // An expired ban no longer applies: it is shown as none.
      .leftJoin('user_bans', (join) => join.onRef('user_bans.user_id', '=', 'users.id').on(inForce(now)))
      .select(['users.id', 'users.username', 'users.role', 'users.tier', 'users.created_at', 'users.last_seen_at', 'user_bans.reason', 'user_bans.until'])
      .orderBy(byName ? 'users.username_lower' : 'users.created_at', byName ? 'asc' : 'desc')
      .orderBy('users.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute()
  );
}

/** How many users the list's search and role filter keep (`n`). */
export async function countMembers(db: Database, q: MemberListQuery) {
  return membersOf(db, q)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
}
