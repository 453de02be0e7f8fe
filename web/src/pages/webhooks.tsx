// The Webhooks section of the settings: register one (URL, events, an optional search), its
// secret shown once with a copy button; the list with its state, turning one on or off, its
// latest deliveries, and delete.
import { useState } from 'preact/hooks';
import { api, invalidate } from '../api/client.ts';
import type { CreatedWebhook, DeliveryList, Webhook, WebhookList } from '../api/types.ts';
import { CopyField } from '../components/copy-field.tsx';
import { ErrorNote, Loading } from '../components/notice.tsx';
import { ago, fullDate } from '../lib/format.ts';
import { useApi } from '../lib/use-api.ts';

const HOOKS = '/api/webhooks';
const EVENTS: Webhook['events'] = ['post.created', 'post.updated', 'post.deleted', 'comment.created', 'comment.deleted', 'like.added', 'like.removed'];

function Deliveries({ id }: { id: string }) {
  const { data, error } = useApi<DeliveryList>(`${HOOKS}/${encodeURIComponent(id)}/deliveries?limit=10`);
  if (error) return <ErrorNote error={error} />;
  if (!data) return <Loading />;
  if (data.deliveries.length === 0) return <p class="muted">Nothing sent yet.</p>;
  return (
    <ul class="deliveries" data-testid="deliveries">
      {data.deliveries.map((d) => (
        <li key={d.id}>
          <span class={`status ${d.state === 'delivered' ? 'status-on' : 'status-off'}`}>{d.state}</span> {d.event} · {d.attempts} attempt
          {d.attempts === 1 ? '' : 's'}
          {d.lastStatus !== null && ` · answered ${d.lastStatus}`}
          {d.lastError && <span class="muted"> · {d.lastError}</span>}{' '}
          <time dateTime={d.createdAt} title={fullDate(d.createdAt)}>
            {ago(d.createdAt)}
          </time>
        </li>
      ))}
    </ul>
  );
}

function HookRow({ w, onChange }: { w: Webhook; onChange(): void }) {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const act = async (run: () => Promise<unknown>) => {
    setError(null);
    try {
      await run();
      onChange();
    } catch (err) {
      setError(err as Error);
    }
  };
  const url = `${HOOKS}/${encodeURIComponent(w.id)}`;
  return (
    <li class="stack webhook" data-testid="webhook">
      <div class="row">
        <span class="mono grow">{w.url}</span>
        <span class={w.active ? 'status status-on' : 'status status-off'}>{w.active ? 'On' : 'Off'}</span>
      </div>
      <div class="muted">
        {w.events.join(', ')}
        {w.q && (
          <>
            {' '}
            · matching <code>{w.q}</code>
          </>
        )}
        {w.failures > 0 && ` · ${w.failures} failed attempts in a row`}
      </div>
      <div class="row">
        <button type="button" class="btn btn-ghost btn-small" onClick={() => act(() => api(url, { method: 'PATCH', json: { active: !w.active } }))}>
          {w.active ? 'Turn off' : 'Turn on'}
        </button>
        <button type="button" class="btn btn-ghost btn-small" aria-expanded={open} onClick={() => setOpen(!open)}>
          Deliveries
        </button>
        <button
          type="button"
          class="btn btn-ghost btn-small link-danger"
          aria-label={`Delete webhook ${w.url}`}
          onClick={() => act(() => api(url, { method: 'DELETE' }))}
        >
          Delete
        </button>
      </div>
      {open && <Deliveries id={w.id} />}
      <ErrorNote error={error} />
    </li>
  );
}

export function Webhooks() {
  const { data, error, reload } = useApi<WebhookList>(HOOKS);
  const [url, setUrl] = useState('');
  const [q, setQ] = useState('');
  const [events, setEvents] = useState<Webhook['events']>(['post.created']);
  const [created, setCreated] = useState<CreatedWebhook | null>(null);
  const [createError, setCreateError] = useState<Error | null>(null);
  const changed = () => {
    invalidate(HOOKS);
    reload();
  };
  const create = async (e: Event) => {
    e.preventDefault();
    setCreateError(null);
    try {
      setCreated(await api<CreatedWebhook>(HOOKS, { method: 'POST', json: { url: url.trim(), events, ...(q.trim() ? { q: q.trim() } : {}) } }));
      setUrl('');
      setQ('');
      changed();
    } catch (err) {
      setCreateError(err as Error);
    }
  };
  const toggle = (name: Webhook['events'][number], on: boolean) => setEvents((list) => (on ? [...list, name] : list.filter((x) => x !== name)));
  return (
    <section id="webhooks" class="card stack" aria-labelledby="hooks-h">
      <h2 id="hooks-h">Webhooks</h2>
      <p class="muted">
        The board POSTs events to your URL as they happen, signed with a secret (<a href="/api/docs">how to check it</a>).
      </p>
      <ErrorNote error={error} />
      {!data && !error && <Loading />}
      {created && (
        <div class="secret" role="region" aria-labelledby="hook-secret-h">
          <h3 id="hook-secret-h">Your webhook’s secret</h3>
          <p>
            <strong>Copy it now: it is shown only once.</strong> Each delivery’s <code>X-Webhook-Signature</code> is <code>sha256=</code> and the HMAC-SHA256 of
            the body with it.
          </p>
          <CopyField
            id="new-secret"
            label="Webhook secret"
            value={created.secret}
            copyText="Copy"
            what="secret"
            testId="new-secret"
            onDone={() => setCreated(null)}
          />
        </div>
      )}
      {data && data.webhooks.length > 0 && (
        <ul class="stack hook-list">
          {data.webhooks.map((w) => (
            <HookRow key={w.id} w={w} onChange={changed} />
          ))}
        </ul>
      )}
      {data && data.webhooks.length === 0 && <p class="muted">No webhooks yet.</p>}
      <form class="stack" onSubmit={create}>
        <div class="field">
          <label for="wh-url">URL</label>
          <input
            id="wh-url"
            type="url"
            required
            maxLength={2000}
            value={url}
            placeholder="https://example.org/hook"
            onInput={(e) => setUrl((e.target as HTMLInputElement).value)}
          />
        </div>
        <fieldset class="row wrap">
          <legend>Events</legend>
          {EVENTS.map((name) => (
            <label key={name} class="check">
              <input type="checkbox" checked={events.includes(name)} onChange={(e) => toggle(name, (e.target as HTMLInputElement).checked)} /> {name}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label for="wh-q">Only posts matching (optional)</label>
          <input id="wh-q" maxLength={1000} value={q} placeholder="e.g. cat rating:safe" onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
        </div>
        <div>
          <button type="submit" class="btn btn-primary" disabled={events.length === 0}>
            Add webhook
          </button>
        </div>
      </form>
      <ErrorNote error={createError} />
    </section>
  );
}
