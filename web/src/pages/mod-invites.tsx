// Invite codes (admins): make one, shown once with a sign-up link to copy; the list with each
// code's status; withdraw an unused one.
import { useState } from 'preact/hooks';
import { api, invalidate, toQuery } from '../api/client.ts';
import type { Invite, InviteCreated, InviteList } from '../api/types.ts';
import { CopyField } from '../components/copy-field.tsx';
import { ErrorNote, Loading } from '../components/notice.tsx';
import { Pager } from '../components/pager.tsx';
import { ago, fullDate } from '../lib/format.ts';
import { useLoc } from '../lib/router.ts';
import { useApi, useFresh } from '../lib/use-api.ts';

const EXPIRY: [string, number | undefined][] = [
  ['never', undefined],
  ['1 day', 86_400],
  ['7 days', 7 * 86_400],
  ['30 days', 30 * 86_400],
];

function NewCode({ created, onDone }: { created: InviteCreated; onDone(): void }) {
  const link = `${location.origin}/register?invite=${encodeURIComponent(created.code)}`;
  return (
    <div class="secret" role="region" aria-labelledby="code-h">
      <h3 id="code-h">New invite code</h3>
      <p>
        <strong>Copy it now: it is shown only once.</strong> Send the person this sign-up link (or the code <code>{created.code}</code>).
      </p>
      <CopyField id="invite-link" label="Sign-up link" value={link} copyText="Copy link" what="link" grow onDone={onDone} />
    </div>
  );
}

function Row({ inv, onChange }: { inv: Invite; onChange(): void }) {
  const [error, setError] = useState<Error | null>(null);
  const withdraw = async () => {
    try {
      await api(`/api/admin/invites/${encodeURIComponent(inv.id)}`, { method: 'DELETE' });
      onChange();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <tr data-invite-id={inv.id}>
      <td>{inv.note || <span class="muted">—</span>}</td>
      <td>
        <span class={inv.status === 'unused' ? 'status status-on' : 'status status-off'}>{inv.status}</span>
      </td>
      <td>
        {inv.createdBy?.username ?? <span class="muted">deleted</span>},{' '}
        <time dateTime={inv.createdAt} title={fullDate(inv.createdAt)}>
          {ago(inv.createdAt)}
        </time>
      </td>
      <td>{inv.expiresAt ? fullDate(inv.expiresAt) : <span class="muted">never</span>}</td>
      <td>{inv.usedBy ? <a href={`/users/${encodeURIComponent(inv.usedBy.username)}`}>{inv.usedBy.username}</a> : <span class="muted">—</span>}</td>
      <td class="right">
        {inv.status === 'unused' && (
          <button type="button" class="btn btn-ghost btn-small link-danger" onClick={withdraw} aria-label={`Withdraw invite ${inv.note || inv.id}`}>
            Withdraw
          </button>
        )}
        <ErrorNote error={error} />
      </td>
    </tr>
  );
}

export function Invites() {
  useFresh('/api/admin/invites');
  const page = Math.max(1, Number(useLoc().query.get('page')) || 1);
  const path = `/api/admin/invites${toQuery({ page })}`;
  const { data, error, reload } = useApi<InviteList>(path);
  const [note, setNote] = useState('');
  const [expiry, setExpiry] = useState(0);
  const [created, setCreated] = useState<InviteCreated | null>(null);
  const [createError, setCreateError] = useState<Error | null>(null);
  const refresh = () => {
    invalidate('/api/admin/invites');
    reload();
  };
  const create = async (e: Event) => {
    e.preventDefault();
    setCreateError(null);
    try {
      setCreated(await api<InviteCreated>('/api/admin/invites', { method: 'POST', json: { note: note.trim() || undefined, expiresIn: EXPIRY[expiry][1] } }));
      setNote('');
      refresh();
    } catch (err) {
      setCreateError(err as Error);
    }
  };
  return (
    <section class="stack" aria-label="Invites">
      <form class="row" onSubmit={create}>
        <div class="field grow">
          <label for="i-note">Whom it is for (optional)</label>
          <input id="i-note" maxLength={200} value={note} onInput={(e) => setNote((e.target as HTMLInputElement).value)} />
        </div>
        <div class="field">
          <label for="i-exp">Expires after</label>
          <select id="i-exp" value={expiry} onChange={(e) => setExpiry(Number((e.target as HTMLSelectElement).value))}>
            {EXPIRY.map(([label], i) => (
              <option key={label} value={i}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="btn btn-primary">
          Make invite code
        </button>
      </form>
      <ErrorNote error={createError} />
      {created && <NewCode created={created} onDone={() => setCreated(null)} />}
      <ErrorNote error={error} />
      {!data && !error && <Loading />}
      {data && data.invites.length === 0 && <p class="muted">No invite codes yet.</p>}
      {data && data.invites.length > 0 && (
        <div class="table-wrap">
          <table class="staff-table">
            <caption class="sr-only">Invite codes, newest first</caption>
            <thead>
              <tr>
                <th scope="col">For</th>
                <th scope="col">Status</th>
                <th scope="col">Made</th>
                <th scope="col">Expires</th>
                <th scope="col">Used by</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.invites.map((inv) => (
                <Row key={inv.id} inv={inv} onChange={refresh} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && <Pager page={page} totalPages={data.totalPages} />}
    </section>
  );
}
