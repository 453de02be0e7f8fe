// The API Keys section: the tier and its cap, create (with its scopes, expiry and addresses; the
// secret shown once, with a copy button), the list with limits, last use and status, and revoke
// after a confirmation.
import { useState } from 'preact/hooks';
import { api, invalidate } from '../api/client.ts';
import type { ApiKey, CreatedKey, KeyList } from '../api/types.ts';
import { CopyField } from '../components/copy-field.tsx';
import { ErrorNote, Loading } from '../components/notice.tsx';
import { ago, fullDate } from '../lib/format.ts';
import { useApi } from '../lib/use-api.ts';
import { useSession } from '../lib/session.ts';
import { expired, KeyLimits, LimitFields, limitsJson, noLimits } from './api-key-limits.tsx';

const KEYS = '/api/user/api-keys';

function Secret({ created, onDone }: { created: CreatedKey; onDone(): void }) {
  return (
    <div class="secret" role="region" aria-labelledby="secret-h">
      <h3 id="secret-h">Your new key “{created.name}”</h3>
      <p>
        <strong>Copy it now: it is shown only once.</strong> Send it in the <code>X-API-Key</code> header.
      </p>
      <CopyField id="new-key" label="New API key" value={created.key} copyText="Copy" what="key" testId="new-key" onDone={onDone} />
    </div>
  );
}

function KeyRow({ k, onRevoked }: { k: ApiKey; onRevoked(): void }) {
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const revoke = async () => {
    try {
      await api(KEYS, { method: 'DELETE', json: { keyId: k.id } });
      onRevoked();
    } catch (err) {
      setError(err as Error);
    }
    setConfirming(false);
  };
  return (
    <tr data-key-id={k.id}>
      <td>
        <strong>{k.name}</strong>
        <div class="mono muted">{k.prefix}…</div>
        <KeyLimits k={k} />
      </td>
      <td>
        <time dateTime={k.createdAt} title={fullDate(k.createdAt)}>
          {ago(k.createdAt)}
        </time>
      </td>
      <td>
        {k.lastUsed ? (
          <time dateTime={k.lastUsed} title={fullDate(k.lastUsed)}>
            {ago(k.lastUsed)}
          </time>
        ) : (
          <span class="muted">never</span>
        )}
        {k.lastUsedFrom && <div class="mono muted">from {k.lastUsedFrom}</div>}
      </td>
      <td>
        <span class={k.isActive && !expired(k) ? 'status status-on' : 'status status-off'}>{k.isActive ? (expired(k) ? 'Expired' : 'Active') : 'Revoked'}</span>
      </td>
      <td class="right">
        {k.isActive && !confirming && (
          <button type="button" class="btn btn-ghost btn-small link-danger" onClick={() => setConfirming(true)} aria-label={`Revoke key ${k.name}`}>
            Revoke
          </button>
        )}
        {confirming && (
          <span class="confirm" role="group" aria-label={`Confirm revoking ${k.name}`}>
            Revoke “{k.name}”? Programs using it stop working.{' '}
            <button type="button" class="btn btn-danger btn-small" onClick={revoke}>
              Revoke key
            </button>{' '}
            <button type="button" class="btn btn-ghost btn-small" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        )}
        <ErrorNote error={error} />
      </td>
    </tr>
  );
}

export function ApiKeys() {
  const role = useSession().user?.role;
  const admin = role === 'admin';
  const staff = admin || role === 'moderator';
  const { data, error, reload } = useApi<KeyList>(KEYS);
  const [name, setName] = useState('');
  const [limits, setLimits] = useState(() => noLimits(staff));
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [createError, setCreateError] = useState<Error | null>(null);
  // The tier's cap counts active keys that have not expired.
  const active = data ? data.keys.filter((k) => k.isActive && !expired(k)).length : 0;
  const full = !!data && active >= data.maxKeys;

  const create = async (e: Event) => {
    e.preventDefault();
    setCreateError(null);
    try {
      setCreated(await api<CreatedKey>(KEYS, { method: 'POST', json: { name: name.trim(), ...limitsJson(limits) } }));
      setName('');
      setLimits(noLimits(staff));
      invalidate(KEYS);
      reload();
    } catch (err) {
      setCreateError(err as Error);
    }
  };
  return (
    <section id="api-keys" class="card stack" aria-labelledby="keys-h">
      <h2 id="keys-h">API keys</h2>
      <p class="muted">
        Programs send a key in the <code>X-API-Key</code> header to use the <a href="/api/docs">API</a> as you, with higher rate limits.
      </p>
      <ErrorNote error={error} />
      {!data && !error && <Loading />}
      {data && (
        <p class="tier" data-testid="tier">
          Your tier: <strong>{data.tier}</strong>. It allows <strong>{data.maxKeys}</strong> active key{data.maxKeys === 1 ? '' : 's'}; you have {active}.
        </p>
      )}
      {created && <Secret created={created} onDone={() => setCreated(null)} />}
      <form class="stack key-form" onSubmit={create}>
        <div class="field">
          <label for="k-name">Name of the new key</label>
          <input
            id="k-name"
            required
            maxLength={64}
            value={name}
            placeholder="e.g. my-uploader-script"
            onInput={(e) => setName((e.target as HTMLInputElement).value)}
          />
        </div>
        <LimitFields value={limits} staff={staff} onChange={setLimits} />
        <div>
          <button type="submit" class="btn btn-primary" disabled={limits.scopes.length === 0}>
            Create key
          </button>
        </div>
      </form>
      {full && !createError && (
        <p class="note note-warn" data-testid="key-cap">
          {data!.maxKeys === 0
            ? `The ${data!.tier} tier includes no API keys: keys come with the basic tier and above. You can still use the site and the API through your session.`
            : `You have reached your ${data!.tier} tier's limit of ${data!.maxKeys} active key${data!.maxKeys === 1 ? '' : 's'}. Revoke one to create another.`}
          {admin && (
            <>
              {' '}
              As an admin, you can raise your own tier under <a href="/moderation?tab=users">Moderation, Users</a>.
            </>
          )}
        </p>
      )}
      <ErrorNote error={createError} />
      {data && data.keys.length > 0 && (
        <div class="table-wrap">
          <table class="keys">
            <caption class="sr-only">Your API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {data.keys.map((k) => (
                <KeyRow
                  key={k.id}
                  k={k}
                  onRevoked={() => {
                    invalidate(KEYS);
                    reload();
                  }}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && data.keys.length === 0 && <p class="muted">No keys yet.</p>}
    </section>
  );
}
