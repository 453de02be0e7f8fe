// The members (mod-members.tsx: with their role, tier and bans), and one of them, found by name or
// picked from the list: ban (with a reason and an optional end) or lift the ban; admins also set
// the role and the tier, and see the account as the server returns it after a change.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, invalidate } from '../api/client.ts';
import type { AccountChanged, BanState, Profile } from '../api/types.ts';
import { ErrorNote, Loading } from '../components/notice.tsx';
import { fullDate, shortDate } from '../lib/format.ts';
import { navigate, useLoc, withQuery } from '../lib/router.ts';
import { useApi } from '../lib/use-api.ts';
import { Members } from './mod-members.tsx';

const ROLES = ['user', 'moderator', 'admin'] as const;
const TIERS = ['free', 'basic', 'pro', 'enterprise'] as const;

function BanPanel({ name }: { name: string }) {
  const path = `/api/admin/users/${encodeURIComponent(name)}/ban`;
  const [ban, setBan] = useState<BanState['ban'] | null | undefined>(undefined);
  const [reason, setReason] = useState('');
  const [until, setUntil] = useState('');
  const [error, setError] = useState<Error | null>(null);
  useEffect(() => {
    setBan(undefined);
    api<BanState>(path).then(
      (r) => setBan(r.ban),
      (err) => (err instanceof ApiError && err.status === 404 ? setBan(null) : setError(err)),
    );
  }, [path]);
  const act = async (e?: Event) => {
    e?.preventDefault();
    setError(null);
    try {
      if (ban) {
        await api(path, { method: 'DELETE' });
        setBan(null);
      } else {
        // datetime-local is the viewer's local time; the API takes an absolute ISO time.
        const json = { reason: reason.trim(), until: until ? new Date(until).toISOString() : undefined };
        setBan((await api<BanState>(path, { method: 'PUT', json })).ban);
        setReason('');
        setUntil('');
      }
      invalidate('/api/audit');
    } catch (err) {
      setError(err as Error);
    }
  };
  if (ban === undefined && !error) return <Loading />;
  return (
    <section class="card stack" aria-labelledby="ban-h">
      <h2 id="ban-h">Ban</h2>
      {ban ? (
        <>
          <p data-testid="ban-state">
            <strong>Banned {ban.until ? `until ${fullDate(ban.until)}` : 'permanently'}</strong> by {ban.bannedBy?.username ?? 'the command line'}: {ban.reason}
          </p>
          <div class="row">
            <button type="button" class="btn" onClick={() => act()}>
              Lift ban
            </button>
          </div>
        </>
      ) : (
        <form class="row" onSubmit={act}>
          <div class="field grow">
            <label for="ban-reason">Reason (shown to the user)</label>
            <input id="ban-reason" required maxLength={500} value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
          </div>
          <div class="field">
            <label for="ban-until">Ends (empty: permanent)</label>
            <input id="ban-until" type="datetime-local" value={until} onInput={(e) => setUntil((e.target as HTMLInputElement).value)} />
          </div>
          <button type="submit" class="btn btn-danger">
            Ban {name}
          </button>
        </form>
      )}
      <ErrorNote error={error} />
    </section>
  );
}

function AccountPanel({ name }: { name: string }) {
  const [role, setRole] = useState('');
  const [tier, setTier] = useState('');
  const [saved, setSaved] = useState<AccountChanged | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const save = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setSaved(null);
    try {
      const json = { role: role || undefined, tier: tier || undefined };
      setSaved(await api<AccountChanged>(`/api/admin/users/${encodeURIComponent(name)}`, { method: 'PUT', json }));
      invalidate('/api/audit');
    } catch (err) {
      setError(err as Error);
    }
  };
  const select = (id: string, label: string, values: readonly string[], value: string, set: (v: string) => void) => (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => set((e.target as HTMLSelectElement).value)}>
        <option value="">unchanged</option>
        {values.map((v) => (
          <option key={v} value={v}>
            {v}
          </option>
        ))}
      </select>
    </div>
  );
  return (
    <section class="card stack" aria-labelledby="acct-h">
      <h2 id="acct-h">Role and tier</h2>
      <form class="row" onSubmit={save}>
        {select('u-role', 'Role', ROLES, role, setRole)}
        {select('u-tier', 'Tier', TIERS, tier, setTier)}
        <button type="submit" class="btn btn-primary" disabled={!role && !tier}>
          Save
        </button>
      </form>
      {saved && (
        <p class="note note-ok" role="status">
          {saved.user.username} is now a {saved.user.role} on the {saved.user.tier} tier
          {saved.revokedKeys > 0 && ` (${saved.revokedKeys} API key${saved.revokedKeys === 1 ? '' : 's'} over the new cap revoked)`}.
        </p>
      )}
      <ErrorNote error={error} />
    </section>
  );
}

export function Users({ admin }: { admin: boolean }) {
  const loc = useLoc();
  const name = loc.query.get('user') ?? '';
  const [text, setText] = useState(name);
  useEffect(() => setText(name), [name]);
  const { data: profile, error } = useApi<Profile>(name ? `/api/users/${encodeURIComponent(name)}` : null);
  const unknown = error instanceof ApiError && error.status === 404;
  const find = (e: Event) => {
    e.preventDefault();
    navigate(withQuery({ user: text.trim() || undefined }));
  };
  return (
    <section class="stack" aria-label="Users">
      <form class="row" role="search" onSubmit={find}>
        <div class="field grow">
          <label for="u-find">Username</label>
          <input id="u-find" required maxLength={64} value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} />
        </div>
        <button type="submit" class="btn btn-primary">
          Find user
        </button>
      </form>
      {error && <ErrorNote error={unknown ? `No user is called “${name}”.` : error} />}
      {name && !profile && !error && <Loading />}
      {profile && (
        <>
          <p>
            <a href={`/users/${encodeURIComponent(profile.username)}`}>
              <strong>{profile.username}</strong>
            </a>{' '}
            <span class="muted">
              member since {shortDate(profile.createdAt)} · {profile.stats.uploads} uploads · {profile.stats.comments} comments
            </span>{' '}
            <a href={withQuery({ tab: 'audit', user: undefined, target: `user:${profile.username.toLowerCase()}` })}>Audit entries</a> ·{' '}
            <a href={withQuery({ user: undefined })}>All members</a>
          </p>
          <BanPanel key={profile.username} name={profile.username} />
          {admin && <AccountPanel key={profile.username} name={profile.username} />}
        </>
      )}
      {/* A name that is nobody's may be a typo: the names that contain it. */}
      {(!name || unknown) && <Members search={unknown ? name.slice(0, 32) : undefined} />}
    </section>
  );
}
