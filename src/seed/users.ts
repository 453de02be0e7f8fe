import { scryptSync } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { UsersTable } from '../db/types.ts';
import { bio, username } from './names.ts';
import { DAY, spreadTimes } from './plan.ts';
import type { Random } from './random.ts';

/** Every seeded account signs in with this password; the command prints it. */
export const SEED_PASSWORD = 'password123';
/** The first seeded user, role admin; the command says so. */
export const SEED_ADMIN = 'admin';

const SCRYPT = { N: 16384, r: 8, p: 1 } as const;

/**
 * A real scrypt hash of SEED_PASSWORD in the form `scrypt$N$r$p$salt$hash` (base64, 16-byte
 * salt, 64-byte key). Computed once and shared by every seeded user; the salt comes from the
 * seed so the database stays reproducible.
 */
export function seedPasswordHash(rng: Random): string {
  const salt = rng.bytes(16);
  const key = scryptSync(SEED_PASSWORD, salt, 64, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** When each user joined: from three months before the first post to an hour before --until. */
export function userJoinTimes(count: number, start: number, until: number, rng: Random): Float64Array {
  return spreadTimes(count, start - 90 * DAY, until - 3_600_000, rng);
}

const TIERS = [
  ['free', 70],
  ['basic', 15],
  ['pro', 10],
  ['enterprise', 5],
] as const;

/**
 * User rows, ids 1..n in joining order. The first is `admin` (role admin); the next few are
 * moderators. About 15% were seen in the last 24 hours, the rest at some point since joining.
 */
export function userRows(joined: Float64Array, until: number, passwordHash: string, rng: Random): Insertable<UsersTable>[] {
  const moderators = Math.min(joined.length - 1, Math.max(2, Math.min(10, Math.round(joined.length / 100))));
  const taken = new Set<string>([SEED_ADMIN]);
  return Array.from(joined, (created, i) => {
    const name = i === 0 ? SEED_ADMIN : username(rng, taken);
    const recent = i === 0 || rng.chance(0.15);
    const lastSeen = recent ? Math.max(created, until - rng.int(DAY)) : created + Math.floor((until - DAY - created) * Math.sqrt(rng.next()));
    return {
      id: i + 1,
      username: name,
      username_lower: name.toLowerCase(),
      email: rng.chance(0.85) ? `${name.toLowerCase()}@example.com` : null,
      password_hash: passwordHash,
      role: i === 0 ? 'admin' : i <= moderators ? 'moderator' : 'user',
      tier: i === 0 ? 'enterprise' : rng.weighted(TIERS),
      bio: i === 0 ? 'Site administrator.' : bio(rng),
      avatar_path: null,
      created_at: created,
      last_seen_at: Math.max(created, lastSeen),
    };
  });
}
