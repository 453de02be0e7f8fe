import type { TagHistory, TagHistoryEntry } from '../api/types.ts';
import { ErrorNote } from '../components/notice.tsx';
import { fullDate } from '../lib/format.ts';
import { useApi } from '../lib/use-api.ts';

type Fields = NonNullable<TagHistoryEntry['before']>;

const FIELD_LABEL: Record<keyof Fields, string> = { name: 'name', category: 'category', description: 'description', from: 'from', to: 'to' };

/** What one entry did, in words: "alias kitten → cat added", "category: general → artist". */
function describe(e: TagHistoryEntry): string {
  if (e.kind !== 'tag') {
    const pair = e.after ?? e.before;
    const what = e.kind === 'alias' ? `alias ${pair?.from} → ${pair?.to}` : `implication ${pair?.from} → ${pair?.to}`;
    return `${what} ${e.action === 'delete' ? 'removed' : 'added'}`;
  }
  const before = e.before ?? {};
  const after = e.after ?? {};
  return (Object.keys(after) as (keyof Fields)[])
    .map((k) => (k === 'description' ? 'description changed' : `${FIELD_LABEL[k]}: ${before[k] ?? '—'} → ${after[k]}`))
    .join('; ');
}

/** The tag page's history: the newest changes to the tag, its aliases and its implications. */
export function TagHistoryList({ name }: { name: string }) {
  const { data, error } = useApi<TagHistory>(`/api/tags/${encodeURIComponent(name)}/history?limit=20`);
  if (error) return <ErrorNote error={error} />;
  if (!data || data.history.length === 0) return null;
  return (
    <section aria-label="Tag history">
      <h2>History</h2>
      <ul class="tag-history" data-testid="tag-history">
        {data.history.map((e) => (
          <li key={e.id}>
            <span>{describe(e)}</span>{' '}
            <span class="muted">
              by {e.user ? <a href={`/users/${encodeURIComponent(e.user.username)}`}>{e.user.username}</a> : 'the command line'} · {fullDate(e.createdAt)}
            </span>
          </li>
        ))}
      </ul>
      {data.pagination.total > data.history.length && (
        <p class="muted">
          The newest {data.history.length} of {data.pagination.total} changes.
        </p>
      )}
    </section>
  );
}
