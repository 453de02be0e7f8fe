import type { Clock, Deps, Viewer } from '../../core/deps.ts';
import type { Db } from '../../db/engine.ts';
import { badRequest, forbidden, notFound } from '../../core/errors.ts';
import { iso, isoOrNull } from '../../core/schemas.ts';
import { KEY_CAP, type Tier } from '../../core/tiers.ts';
import { randomToken, sha256Hex } from '../../core/tokens.ts';
import type { NewKeyBody, RevokeKeyBody } from './api-keys.schemas.ts';
import { toId } from '../../core/ids.ts';
import { keyLimits, limitsJson } from './api-keys.limits.ts';
import * as repo from './api-keys.repo.ts';

export const KEY_PREFIX = 'ib_';

/**
 * The 403 past the cap, saying how to get room: revoke a key, or have an admin raise the tier
 * (there is no self-service); an admin is told to raise their own.
 */
function capMessage(tier: Tier, cap: number, active: number, viewer: Viewer): string {
  const tiers = Object.entries(KEY_CAP)
    .map(([t, n]) => `${t} ${n}`)
    .join(', ');
  const allows = `The ${tier} tier allows ${cap} active API key${cap === 1 ? '' : 's'}${active > 0 ? '; revoke one to make room, or' : ';'}`;
  const how = `with PUT /api/admin/users/${viewer.username} {"tier":"enterprise"} or \`npx imageboard user set-tier ${viewer.username} enterprise\``;
  if (viewer.role === 'admin') return `${allows} as an admin, raise your own tier (${tiers}) ${how}`;
  return `${allows} ask an admin for a higher tier (${tiers}): an admin sets it ${how.replaceAll('enterprise', 'basic')}`;
}

export async function createKey(deps: Deps, viewer: Viewer, body: NewKeyBody) {
  const name = body.name.trim();
  if (name === '') badRequest("field 'name' must not be empty", [{ field: 'name', message: 'must not be empty' }]);
  const secret = KEY_PREFIX + randomToken();
  const now = deps.clock.now();
  const limits = keyLimits(viewer, body, now);
  const row = await deps.db.transaction().execute(async (trx) => {
    // Lock the user row so two concurrent creates cannot both pass the cap (SQLite serialises writes anyway).
    const { tier } = await repo.lockUserTier(deps.db, trx, viewer.id);
    const cap = KEY_CAP[tier as Tier] ?? 0;
    const active = await repo.countActiveKeys(trx, viewer.id, now);
    if (Number(active.n) >= cap) forbidden(capMessage(tier as Tier, cap, Number(active.n), viewer));
    return repo.insertKey(trx, {
      user_id: viewer.id,
      name,
      key_hash: sha256Hex(secret),
      key_prefix: secret.slice(0, 8),
      is_active: 1,
      created_at: now,
      last_used: null,
      revoked_at: null,
      ...limits,
    });
  });
  return { id: String(row.id), key: secret, name: row.name, prefix: row.key_prefix, createdAt: iso(row.created_at), ...limitsJson(row) };
}

export async function listKeys(deps: Deps, viewer: Viewer) {
  const rows = await repo.listKeysOf(deps.db, viewer.id);
  return {
    keys: rows.map((k) => ({
      id: String(k.id),
      name: k.name,
      prefix: k.key_prefix,
      lastUsed: isoOrNull(k.last_used),
      createdAt: iso(k.created_at),
      isActive: k.is_active === 1,
      ...limitsJson(k),
      lastUsedFrom: k.last_used_ip,
    })),
    tier: viewer.tier,
    maxKeys: KEY_CAP[viewer.tier] ?? 0,
  };
}

/** Revoking your own key twice is fine; a key that is not yours is not found. */
export async function revokeKey(deps: Deps, viewer: Viewer, body: RevokeKeyBody) {
  const id = toId(body.keyId) ?? -1;
  const key = await repo.findKeyOf(deps.db, id, viewer.id);
  if (!key) notFound('API key', body.keyId);
  if (key!.is_active === 1) {
    await repo.revokeKey(deps.db, id, deps.clock.now());
  }
  return { message: `API key ${body.keyId} revoked` };
}

/** After a tier goes down: revoke the newest active, unexpired keys beyond the new cap. */
export async function enforceKeyCap(deps: { db: Db; clock: Clock }, userId: number, tier: Tier): Promise<number> {
  const active = await repo.activeKeyIds(deps.db, userId, deps.clock.now());
  const excess = active.slice(KEY_CAP[tier]).map((k) => k.id);
  if (excess.length > 0) {
    await repo.revokeKeys(deps.db, excess, deps.clock.now());
  }
  return excess.length;
}
