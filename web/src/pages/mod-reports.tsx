// The report queue: reports in one state, newest first; an open one is resolved (acted on) or
// dismissed (nothing wrong) with an optional note, and then leaves the open list.
import { api, invalidate, toQuery } from '../api/client.ts';
import type { Report, ReportList, ReportState } from '../api/types.ts';
import { Empty, ErrorNote, Loading } from '../components/notice.tsx';
import { NoteDecision } from '../components/note-decision.tsx';
import { Pager } from '../components/pager.tsx';
import { ago, fullDate } from '../lib/format.ts';
import { navigate, useLoc, withQuery } from '../lib/router.ts';
import { useApi, useFresh } from '../lib/use-api.ts';

const STATES: ReportState[] = ['open', 'resolved', 'dismissed'];
const LIMIT = 50;

function Target({ r }: { r: Report }) {
  if (r.postId) return <a href={`/posts/${encodeURIComponent(r.postId)}`}>Post {r.postId}</a>;
  return <span>Comment {r.commentId}</span>;
}

function Settle({ r, onDone }: { r: Report; onDone(): void }) {
  const settle = (state: 'resolved' | 'dismissed') => (note: string) =>
    api(`/api/moderation/reports/${encodeURIComponent(r.id)}`, { method: 'PATCH', json: { state, note: note || undefined } });
  return (
    <NoteDecision
      id={`note-${r.id}`}
      group={`Settle report ${r.id}`}
      noteLabel={`Note for report ${r.id}`}
      placeholder="Note (optional)"
      choices={[
        { label: 'Resolve', primary: true, run: settle('resolved') },
        { label: 'Dismiss', run: settle('dismissed') },
      ]}
      onDone={onDone}
    />
  );
}

export function Reports() {
  useFresh('/api/moderation/reports');
  const loc = useLoc();
  const state = (STATES as string[]).includes(loc.query.get('state') ?? '') ? (loc.query.get('state') as ReportState) : 'open';
  const page = Math.max(1, Number(loc.query.get('page')) || 1);
  const path = `/api/moderation/reports${toQuery({ state, page, limit: LIMIT })}`;
  const { data, error, reload } = useApi<ReportList>(path);
  const done = () => {
    invalidate('/api/moderation/reports');
    invalidate('/api/audit');
    reload();
  };
  return (
    <section class="stack" aria-label="Reports">
      <div class="row filters">
        <div class="field">
          <label for="r-state">Show</label>
          <select id="r-state" value={state} onChange={(e) => navigate(withQuery({ state: (e.target as HTMLSelectElement).value, page: undefined }))}>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        {data && <span class="muted">{data.pagination.total} in all</span>}
      </div>
      <ErrorNote error={error} />
      {!data && !error && <Loading />}
      {data && data.reports.length === 0 && (
        <Empty>
          <p>No {state} reports.</p>
        </Empty>
      )}
      {data && data.reports.length > 0 && (
        <div class="table-wrap">
          <table class="staff-table">
            <caption class="sr-only">{state} reports</caption>
            <thead>
              <tr>
                <th scope="col">Reported</th>
                <th scope="col">Reason</th>
                <th scope="col">By</th>
                <th scope="col">When</th>
                <th scope="col">{state === 'open' ? 'Settle' : 'Settled'}</th>
              </tr>
            </thead>
            <tbody>
              {data.reports.map((r) => (
                <tr key={r.id} data-report-id={r.id}>
                  <td>
                    <Target r={r} />
                  </td>
                  <td class="wrap">{r.reason}</td>
                  <td>{r.reporter?.username ?? <span class="muted">deleted</span>}</td>
                  <td>
                    <time dateTime={r.createdAt} title={fullDate(r.createdAt)}>
                      {ago(r.createdAt)}
                    </time>
                  </td>
                  <td>
                    {r.state === 'open' ? (
                      <Settle r={r} onDone={done} />
                    ) : (
                      <span>
                        {r.state}
                        {r.settledBy && ` by ${r.settledBy.username}`}
                        {r.settledAt && ` ${ago(r.settledAt)}`}
                        {r.note && <span class="muted">: {r.note}</span>}
                      </span>
                    )}
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
