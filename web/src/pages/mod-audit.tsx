// The audit log, newest first, filtered by actor, action and target (all in the URL).
import { useEffect, useState } from 'preact/hooks';
import { toQuery } from '../api/client.ts';
import type { AuditAction, AuditList } from '../api/types.ts';
import { Empty, ErrorNote, Loading } from '../components/notice.tsx';
import { Pager } from '../components/pager.tsx';
import { ago, fullDate } from '../lib/format.ts';
import { navigate, useLoc, withQuery } from '../lib/router.ts';
import { useApi, useFresh } from '../lib/use-api.ts';

// A Record, so an action the server adds is a type error here until it has a label.
const ACTIONS: Record<AuditAction, string> = {
  'user.role': 'Role changed',
  'user.tier': 'Tier changed',
  'user.ban': 'User banned',
  'user.unban': 'Ban lifted',
  'post.edit': 'Post edited',
  'post.delete': 'Post deleted',
  'post.approve': 'Upload approved',
  'post.reject': 'Upload rejected',
  'posts.bulk_tags': 'Bulk tag edit',
  'comment.delete': 'Comment deleted',
  'pool.edit': 'Pool edited',
  'pool.delete': 'Pool deleted',
  'report.resolve': 'Report resolved',
  'report.dismiss': 'Report dismissed',
  'tag.update': 'Tag changed',
  'tag_alias.create': 'Alias made',
  'tag_alias.delete': 'Alias deleted',
  'tag_implication.create': 'Implication made',
  'tag_implication.delete': 'Implication deleted',
};
const LIMIT = 50;

function Details({ d }: { d: Record<string, unknown> }) {
  const keys = Object.keys(d);
  if (!keys.length) return <span class="muted">—</span>;
  return (
    <span class="mono">
      {keys.map((k, i) => (
        <span key={k}>
          {i > 0 && ', '}
          {k}: {typeof d[k] === 'string' ? (d[k] as string) : JSON.stringify(d[k])}
        </span>
      ))}
    </span>
  );
}

export function AuditLog() {
  useFresh('/api/audit');
  const loc = useLoc();
  const q = loc.query;
  const filters = { actor: q.get('actor') ?? '', action: q.get('action') ?? '', target: q.get('target') ?? '' };
  const page = Math.max(1, Number(q.get('page')) || 1);
  const [form, setForm] = useState(filters);
  useEffect(() => setForm(filters), [filters.actor, filters.action, filters.target]);
  const { data, error } = useApi<AuditList>(`/api/audit${toQuery({ ...filters, page, limit: LIMIT })}`);
  const apply = (e: Event) => {
    e.preventDefault();
    navigate(withQuery({ actor: form.actor.trim(), action: form.action, target: form.target.trim(), page: undefined }));
  };
  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  return (
    <section class="stack" aria-label="Audit log">
      <form class="row filters" onSubmit={apply}>
        <div class="field">
          <label for="a-actor">Actor</label>
          <input id="a-actor" maxLength={64} value={form.actor} onInput={set('actor')} placeholder="username" />
        </div>
        <div class="field">
          <label for="a-action">Action</label>
          <select id="a-action" value={form.action} onChange={set('action')}>
            <option value="">any</option>
            {Object.entries(ACTIONS).map(([a, label]) => (
              <option key={a} value={a}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div class="field grow">
          <label for="a-target">Target</label>
          <input id="a-target" maxLength={300} value={form.target} onInput={set('target')} placeholder="user:name, post:12, tag:cat…" />
        </div>
        <button type="submit" class="btn btn-primary">
          Filter
        </button>
      </form>
      <ErrorNote error={error} />
      {!data && !error && <Loading />}
      {data && data.entries.length === 0 && (
        <Empty>
          <p>No entries{filters.actor || filters.action || filters.target ? ' match these filters' : ' yet'}.</p>
        </Empty>
      )}
      {data && data.entries.length > 0 && (
        <div class="table-wrap">
          <table class="staff-table">
            <caption class="sr-only">Audit entries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Details</th>
              </tr>
            </thead>
            <tbody>
              {data.entries.map((e) => (
                <tr key={e.id} data-action={e.action}>
                  <td>
                    <time dateTime={e.createdAt} title={fullDate(e.createdAt)}>
                      {ago(e.createdAt)}
                    </time>
                  </td>
                  <td>{e.actor?.username ?? <span class="muted">command line</span>}</td>
                  <td>{ACTIONS[e.action] ?? e.action}</td>
                  <td class="mono">
                    <a href={withQuery({ target: e.target, page: undefined })}>{e.target}</a>
                  </td>
                  <td class="wrap">
                    <Details d={e.details} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && <Pager page={page} totalPages={data.pagination.totalPages} />}
    </section>
  );
}
