import type { ExpressionBuilder, Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';

/** Public pools, plus the viewer's own private ones. */
export const visibleTo = (viewerId: number | null) => (eb: ExpressionBuilder<DB, 'pools'>) =>
  viewerId === null ? eb('pools.is_public', '=', 1) : eb.or([eb('pools.is_public', '=', 1), eb('pools.creator_id', '=', viewerId)]);

export async function listPools(db: Kysely<DB>, viewerId: number | null, offset: number, limit: number) {
  const [rows, total] = await Promise.all([
    db
      .selectFrom('pools')
      .innerJoin('users', 'users.id', 'pools.creator_id')
      .selectAll('pools')
      .select('users.username')
      .where(visibleTo(viewerId))
      .orderBy('pools.updated_at', 'desc')
      .orderBy('pools.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    db
      .selectFrom('pools')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(visibleTo(viewerId))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}
