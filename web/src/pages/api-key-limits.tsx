// A new API key's limits: what it may do (scopes), when it stops working, and the addresses it
// may be used from; and how the list shows them.
import type { ApiKey } from '../api/types.ts';
import { fullDate, shortDate } from '../lib/format.ts';

const SCOPES: { name: string; what: string; staff?: boolean }[] = [
  { name: 'read', what: 'see posts, tags, pools and your settings' },
  { name: 'posts:write', what: 'upload, edit and delete posts' },
  { name: 'comments:write', what: 'comment and report' },
  { name: 'reactions:write', what: 'like and favorite' },
  { name: 'pools:write', what: 'make and change pools' },
  { name: 'moderation', what: 'act as a moderator', staff: true },
];

export interface Limits {
  scopes: string[];
  /** datetime-local, the viewer's local time; empty: never. */
  expires: string;
  /** Addresses and CIDRs separated by spaces or commas; empty: any. */
  addresses: string;
}

export const scopesOf = (staff: boolean) => SCOPES.filter((s) => staff || !s.staff).map((s) => s.name);
export const noLimits = (staff: boolean): Limits => ({ scopes: scopesOf(staff), expires: '', addresses: '' });

/** The limits as POST /api/user/api-keys takes them. */
export function limitsJson(l: Limits) {
  const addresses = l.addresses.split(/[\s,]+/).filter(Boolean);
  return {
    scopes: l.scopes,
    ...(l.expires ? { expiresAt: new Date(l.expires).toISOString() } : {}),
    ...(addresses.length ? { allowedAddresses: addresses } : {}),
  };
}

export function LimitFields({ value, staff, onChange }: { value: Limits; staff: boolean; onChange(l: Limits): void }) {
  const toggle = (name: string, on: boolean) => onChange({ ...value, scopes: scopesOf(staff).filter((s) => (s === name ? on : value.scopes.includes(s))) });
  return (
    <>
      <fieldset class="row wrap">
        <legend>What the key may do</legend>
        {SCOPES.filter((s) => staff || !s.staff).map((s) => (
          <label key={s.name} class="check" title={s.what}>
            <input type="checkbox" checked={value.scopes.includes(s.name)} onChange={(e) => toggle(s.name, (e.target as HTMLInputElement).checked)} /> {s.name}
          </label>
        ))}
      </fieldset>
      <div class="row wrap">
        <div class="field">
          <label for="k-expires">Expires (empty: never)</label>
          <input
            id="k-expires"
            type="datetime-local"
            value={value.expires}
            onInput={(e) => onChange({ ...value, expires: (e.target as HTMLInputElement).value })}
          />
        </div>
        <div class="field grow">
          <label for="k-addresses">Only from addresses (optional)</label>
          <input
            id="k-addresses"
            maxLength={1400}
            value={value.addresses}
            placeholder="e.g. 203.0.113.7, 10.0.0.0/8, 2001:db8::/32"
            onInput={(e) => onChange({ ...value, addresses: (e.target as HTMLInputElement).value })}
          />
        </div>
      </div>
    </>
  );
}

export const expired = (k: ApiKey, now = Date.now()) => k.expiresAt !== null && Date.parse(k.expiresAt) <= now;

/** A key's scopes, expiry and addresses, for its row in the list. */
export function KeyLimits({ k }: { k: ApiKey }) {
  return (
    <div class="muted key-limits">
      <div data-testid="key-scopes">{k.scopes.join(', ')}</div>
      <div>
        {k.expiresAt ? (
          <time dateTime={k.expiresAt} title={fullDate(k.expiresAt)}>
            {expired(k) ? 'expired' : 'expires'} {shortDate(k.expiresAt)}
          </time>
        ) : (
          'never expires'
        )}
        {k.allowedAddresses.length > 0 && <> · only from {k.allowedAddresses.join(', ')}</>}
      </div>
    </div>
  );
}
