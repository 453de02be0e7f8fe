import { useState } from 'preact/hooks';
import { api, invalidate, toQuery } from '../api/client.ts';
import { Empty, ErrorNote, Loading } from '../components/notice.tsx';
import { Pager } from '../components/pager.tsx';
import { ago } from '../lib/format.ts';
import { useLoc } from '../lib/router.ts';
import { useSession } from '../lib/session.ts';
import { useApi, useTitle } from '../lib/use-api.ts';

/** A relation between two tags as the API lists it (an alias, or later an implication). */
interface Relation {
  from: string;
  to: string;
  createdAt: string;
  creator: { username: string } | null;
}

interface RelationKind {
  /** Its list and create endpoint, e.g. /api/tag-aliases. */
  path: string;
  /** The key of the list in the answer. */
  key: string;
  title: string;
  /** What a row means, e.g. "is read as". */
  verb: string;
  /** Where a row is deleted. */
  deletePath(r: Relation): string;
  /** Shown above the form. */
  hint: string;
}

const ALIASES: RelationKind = {
  path: '/api/tag-aliases',
  key: 'aliases',
  title: 'Aliases',
  verb: 'is read as',
  deletePath: (r) => `/api/tag-aliases/${encodeURIComponent(r.from)}`,
  hint: 'From now on the first name is read as the second on every upload, edit and search; posts tagged with it move to the second.',
};

const IMPLICATIONS: RelationKind = {
  path: '/api/tag-implications',
  key: 'implications',
  title: 'Implications',
  verb: 'implies',
  deletePath: (r) => `/api/tag-implications/${encodeURIComponent(r.from)}/${encodeURIComponent(r.to)}`,
  hint: 'From now on every post given the first tag gets the second too; posts that have it already get it in the background. Removing an implication takes no tag from any post.',
};

/** Aliases and implications: listed for everyone, added and removed by moderators. */
export default function TagRelationsPage() {
  useTitle('Tag relations');
  return (
    <div class="page narrow">
      <p class="crumbs">
        <a href="/tags">Tags</a> /
      </p>
      <h1>Tag relations</h1>
      <RelationList kind={ALIASES} />
      <RelationList kind={IMPLICATIONS} />
    </div>
  );
}

function RelationList({ kind }: { kind: RelationKind }) {
  const loc = useLoc();
  const param = `${kind.key}-page`;
  const page = Math.max(1, Number(loc.query.get(param)) || 1);
  const { data, error, reload } = useApi<Record<string, unknown> & { pagination: { totalPages: number } }>(
    `${kind.path}${toQuery({ page: page > 1 ? page : undefined, limit: 50 })}`,
  );
  const { user } = useSession();
  const moderator = !!user && user.role !== 'user';
  const [failed, setFailed] = useState<Error | null>(null);
  const rows = (data?.[kind.key] as Relation[] | undefined) ?? [];
  const changed = () => {
    invalidate(kind.path);
    invalidate('/api/tags');
    invalidate('/api/posts');
    reload();
  };
  const remove = async (r: Relation) => {
    setFailed(null);
    try {
      await api(kind.deletePath(r), { method: 'DELETE' });
      changed();
    } catch (err) {
      setFailed(err as Error);
    }
  };
  const label = kind.title.toLowerCase();
  return (
    <section aria-labelledby={`${kind.key}-h`} data-testid={kind.key}>
      <h2 id={`${kind.key}-h`}>{kind.title}</h2>
      {moderator && <RelationForm kind={kind} onAdded={changed} />}
      <ErrorNote error={error ?? failed ?? undefined} />
      {!data && !error && <Loading />}
      {data && rows.length === 0 && (
        <Empty>
          <p>No {label} yet.</p>
        </Empty>
      )}
      {rows.length > 0 && (
        <ul class="relations">
          {rows.map((r) => (
            <li key={`${r.from}>${r.to}`}>
              <a href={`/tags/${encodeURIComponent(r.from)}`}>{r.from}</a> <span class="muted">{kind.verb}</span>{' '}
              <a href={`/tags/${encodeURIComponent(r.to)}`}>{r.to}</a>{' '}
              <span class="muted">
                · {r.creator ? `by ${r.creator.username}, ` : ''}
                {ago(r.createdAt)}
              </span>
              {moderator && (
                <button type="button" class="link" onClick={() => remove(r)} aria-label={`Remove ${r.from} ${kind.verb} ${r.to}`}>
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {data && <Pager page={page} totalPages={data.pagination.totalPages} param={param} />}
    </section>
  );
}

function RelationForm({ kind, onAdded }: { kind: RelationKind; onAdded(): void }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [error, setError] = useState<Error | null>(null);
  const id = (x: string) => `${kind.key}-${x}`;
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      await api(kind.path, { method: 'POST', json: { from: from.trim(), to: to.trim() } });
      setFrom('');
      setTo('');
      onAdded();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <form class="card stack" onSubmit={submit} aria-label={`New ${kind.title.toLowerCase().replace(/s$/, '')}`}>
      <p class="muted">{kind.hint}</p>
      <div class="row">
        <div class="field grow">
          <label for={id('from')}>From</label>
          <input id={id('from')} required value={from} onInput={(e) => setFrom((e.target as HTMLInputElement).value)} />
        </div>
        <div class="field grow">
          <label for={id('to')}>To</label>
          <input id={id('to')} required value={to} onInput={(e) => setTo((e.target as HTMLInputElement).value)} />
        </div>
      </div>
      <ErrorNote error={error} />
      <div>
        <button type="submit" class="btn btn-primary">
          Add
        </button>
      </div>
    </form>
  );
}
