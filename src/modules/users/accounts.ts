import type { Deps } from '../../core/deps.ts';
import { conflict } from '../../core/errors.ts';
import { type Db, isUniqueViolation } from '../../db/engine.ts';
import type { UserRow } from '../../db/types.ts';
import { iso } from '../../core/schemas.ts';
import type { Role, Tier } from '../../core/tiers.ts';
import { hashPassword } from './password.ts';
import * as repo from './users.repo.ts';

/** The `user` object of the auth and admin endpoints. */
export function userJson(u: Pick<UserRow, 'id' | 'username' | 'role' | 'tier' | 'created_at'>) {
  return { id: String(u.id), username: u.username, role: u.role as Role, tier: u.tier as Tier, createdAt: iso(u.created_at) };
}

export interface NewAccount {
  username: string;
  password: string;
  email?: string | null;
  role?: Role;
  tier?: Tier;
}

/** Work that must commit with the new account or not at all (registration spends its invite here). */
export type WithAccount = (trx: Db, user: UserRow) => Promise<void>;

/** Creates a user (register and the CLI); a name taken in any letter case is 409. */
export async function createAccount(deps: Deps, a: NewAccount, withAccount?: WithAccount): Promise<UserRow> {
  const lower = a.username.toLowerCase();
  const taken = await repo.findUserIdByLowerName(deps.db, lower);
  if (taken) conflict(`Username '${a.username}' is taken`);
  // Hashed before the transaction: ~50 ms of scrypt must not hold SQLite's write lock.
  const passwordHash = await hashPassword(a.password);
  const now = deps.clock.now();
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const user = await repo.insertUser(trx, {
        username: a.username,
        username_lower: lower,
        email: a.email ?? null,
        password_hash: passwordHash,
        role: a.role ?? 'user',
        tier: a.tier ?? 'free',
        bio: '',
        avatar_path: null,
        created_at: now,
        last_seen_at: now,
      });
      await withAccount?.(trx, user);
      return user;
    });
  } catch (err) {
    if (isUniqueViolation(err)) conflict(`Username '${a.username}' is taken`);
    throw err;
  }
}
