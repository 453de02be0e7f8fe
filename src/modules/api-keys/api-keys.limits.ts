import type { Viewer } from '../../core/deps.ts';
import { badRequest, forbidden } from '../../core/errors.ts';
import { parseRange } from '../../core/addresses.ts';
import { isoOrNull } from '../../core/schemas.ts';
import { SCOPES, scopesFor, type Scope } from '../../core/scopes.ts';

/** A new key's limits as the api_keys row keeps them. */
export interface KeyLimits {
  scopes: string;
  expires_at: number | null;
  allowed_addresses: string | null;
}

const bad = (field: string, message: string): never => badRequest(`field '${field}' ${message}`, [{ field, message }]);

/** The scopes asked for, in SCOPES order; left out: every scope the viewer may give. */
function scopesOf(viewer: Viewer, asked: string[] | undefined): Scope[] {
  if (asked === undefined) return scopesFor(viewer.role);
  const unknown = asked.find((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown !== undefined) bad('scopes', `has an unknown scope '${unknown}'; the scopes are ${SCOPES.join(', ')}`);
  const allowed = scopesFor(viewer.role);
  const refused = asked.find((s) => !(allowed as string[]).includes(s));
  if (refused !== undefined) forbidden(`Only a moderator or an admin may give a key the scope '${refused}'`);
  return SCOPES.filter((s) => asked.includes(s));
}

function expiryOf(raw: string | undefined, now: number): number | null {
  if (raw === undefined) return null;
  const at = Date.parse(raw);
  if (!(at > now)) bad('expiresAt', 'must be a time in the future');
  return at;
}

/** The addresses and ranges, trimmed and without repeats; none: null (any address). */
function addressesOf(asked: string[] | undefined): string | null {
  const given = [...new Set((asked ?? []).map((a) => a.trim().toLowerCase()))];
  const wrong = given.find((a) => parseRange(a) === null);
  if (wrong !== undefined) bad('allowedAddresses', `has '${wrong}', which is not an IPv4 or IPv6 address or CIDR range`);
  return given.length > 0 ? given.join(' ') : null;
}

/** Checks what a new key asks for; 400 naming the field, 403 for a scope the viewer may not give. */
export function keyLimits(viewer: Viewer, body: { scopes?: string[]; expiresAt?: string; allowedAddresses?: string[] }, now: number): KeyLimits {
  return {
    scopes: scopesOf(viewer, body.scopes).join(' '),
    expires_at: expiryOf(body.expiresAt, now),
    allowed_addresses: addressesOf(body.allowedAddresses),
  };
}

/** A key's limits as the API shows them. */
export function limitsJson(row: KeyLimits) {
  return {
    scopes: row.scopes.split(' '),
    expiresAt: isoOrNull(row.expires_at),
    allowedAddresses: row.allowed_addresses === null ? [] : row.allowed_addresses.split(' '),
  };
}
