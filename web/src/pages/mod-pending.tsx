// The approval queue (UPLOAD_APPROVAL): uploads waiting for a moderator, oldest first. Approve
// publishes one (everyone sees it then); Reject deletes it with its files, with an optional reason
// for the audit log.
import { api, invalidate, toQuery } from '../api/client.ts';
import type { PendingItem, PendingList } from '../api/types.ts';
import { Empty, ErrorNote, Loading } from '../components/notice.tsx';
import { NoteDecision } from '../components/note-decision.tsx';
import { Pager } from '../components/pager.tsx';
import { ago, fullDate } from '../lib/format.ts';
import { useLoc } from '../lib/router.ts';
import { useApi, useFresh } from '../lib/use-api.ts';

const LIMIT = 50;

function Decide({ p, onDone }: { p: PendingItem; onDone(): void }) {
  const post = `/api/posts/${encodeURIComponent(p.id)}`;
  return (
    <NoteDecision
      id={`reason-${p.id}`}
      group={`Decide on post ${p.id}`}
      noteLabel={`Reason to reject post ${p.id}`}
      placeholder="Reason to reject (optional)"
      choices={[
        { label: 'Approve', primary: true, run: () => api(`${post}/approve`, { method: 'POST' }) },
        { label: 'Reject', run: (reason) => api(`${post}/reject`, { method: 'POST', json: { reason: reason || undefined } }) },
      ]}
      onDone={onDone}
    />
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
