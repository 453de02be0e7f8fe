import type { Status } from '../api/types.ts';
import { useApi } from '../lib/use-api.ts';

const ROWS: [keyof Status, string][] = [
  ['totalPosts', 'Posts'],
  ['totalTags', 'Tags'],
  ['totalUsers', 'Members'],
  ['totalComments', 'Comments'],
  ['newPosts24h', 'New posts, 24 h'],
  ['newComments24h', 'New comments, 24 h'],
  ['activeUsers24h', 'Active members, 24 h'],
];

/** Board statistics from GET /api/public/status. */
export function StatsPanel() {
  const { data, error } = useApi<Status>('/api/public/status');
  return (
    <section class="panel" aria-labelledby="stats-h">
      <h2 id="stats-h" class="panel-title">
        Board statistics
      </h2>
      {error && <p class="muted">Statistics are not available right now.</p>}
      {data && (
        <dl class="stats" data-testid="stats">
          {ROWS.map(([k, label]) => (
            <div key={k}>
              <dt>{label}</dt>
              <dd>{Number(data[k]).toLocaleString()}</dd>
            </div>
          ))}
        </dl>
      )}
      {data && (
        <p class="muted server-line">
          <span class={data.serverStatus === 'healthy' ? 'dot dot-ok' : 'dot'} aria-hidden="true" /> Server {data.serverStatus} · version {data.version}
        </p>
      )}
    </section>
  );
}
