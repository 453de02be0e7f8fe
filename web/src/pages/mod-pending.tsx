// The approval queue (UPLOAD_APPROVAL): uploads waiting for a moderator, oldest first. Approve
// publishes one (everyone sees it then); Reject deletes it with its files, with an optional reason
// for the audit log.
import { useState } from 'preact/hooks';
import { api, invalidate, toQuery } from '../api/client.ts';
import type { PendingItem, PendingList } from '../api/types.ts';
import { Empty, ErrorNote, Loading } from '../components/notice.tsx';
import { Pager } from '../components/pager.tsx';
import { ago, fullDate } from '../lib/format.ts';
import { useLoc } from '../lib/router.ts';
import { useApi, useFresh } from '../lib/use-api.ts';

const LIMIT = 50;

function Decide({ p, onDone }: { p: PendingItem; onDone(): void }) {
  const [reason, setReason] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);
  const decide = async (what: 'approve' | 'reject') => {
    setBusy(true);
    setError(null);
    try {
      await api(`/api/posts/${encodeURIComponent(p.id)}/${what}`, {
        method: 'POST',
        json: what === 'reject' ? { reason: reason.trim() || undefined } : undefined,
      });
      onDone();
    } catch (err) {
      setError(err as Error);
      setBusy(false);
    }
  };
  return (
    <div class="row settle" role="group" aria-label={`Decide on post ${p.id}`}>
      <button type="button" class="btn btn-primary btn-small" disabled={busy} onClick={() => decide('approve')}>
        Approve
      </button>
      <div class="field settle-note">
        <label for={`reason-${p.id}`} class="sr-only">
          Reason to reject post {p.id}
        </label>
        <input
          id={`reason-${p.id}`}
          maxLength={1000}
          placeholder="Reason (optional)"
          value={reason}
          onInput={(e) => setReason((e.target as HTMLInputElement).value)}
        />
      </div>
      <button type="button" class="btn btn-ghost btn-small" disabled={busy} onClick={() => decide('reject')}>
        Reject
      </button>
      <ErrorNote error={error} />
    </div>
  );
}

export function Pending() {
  useFresh('/api/moderation/pending');
  const loc = useLoc();
  const page = Math.max(1, Number(loc.query.get('page')) || 1);
  const { data, error, reload } = useApi<PendingList>(`/api/moderation/pending${toQuery({ page, limit: LIMIT })}`);
  const done = () => {
    invalidate('/api/moderation/pending');
    invalidate('/api/posts');
    invalidate('/api/audit');
    reload();
  };
  return (
    <section class="stack" aria-label="Pending uploads">
      <div class="row filters">{data && <span class="muted">{data.pagination.total} waiting, oldest first</span>}</div>
      <ErrorNote error={error} />
      {!data && !error && <Loading />}
      {data && data.posts.length === 0 && (
        <Empty>
          <p>No uploads wait for approval.</p>
        </Empty>
      )}
      {data && data.posts.length > 0 && (
        <div class="table-wrap">
          <table class="staff-table">
            <caption class="sr-only">Uploads waiting for approval</caption>
            <thead>
              <tr>
                <th scope="col">Upload</th>
                <th scope="col">Tags</th>
                <th scope="col">By</th>
                <th scope="col">When</th>
                <th scope="col">Decide</th>
              </tr>
            </thead>
            <tbody>
              {data.posts.map((p) => (
                <tr key={p.id} data-pending-id={p.id}>
                  <td>
                    <a href={`/posts/${encodeURIComponent(p.id)}`}>
                      <img src={p.thumbnail} alt="" width={72} height={72} loading="lazy" class="upload-thumb" />
                      <span>{p.title}</span>
                    </a>{' '}
                    <span class="muted">{p.contentRating}</span>
                  </td>
                  <td class="wrap">{p.tags.length ? p.tags.join(' ') : <span class="muted">none</span>}</td>
                  <td>
                    <a href={`/users/${encodeURIComponent(p.uploader.username)}`}>{p.uploader.username}</a>
                  </td>
                  <td>
                    <time dateTime={p.createdAt} title={fullDate(p.createdAt)}>
                      {ago(p.createdAt)}
                    </time>
                  </td>
                  <td>
                    <Decide p={p} onDone={done} />
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
