import { useEffect, useState } from 'preact/hooks';
import { api, invalidate, toQuery } from '../api/client.ts';
import type { PoolCreated, PoolList } from '../api/types.ts';
import { Empty, ErrorNote, Loading } from '../components/notice.tsx';
import { Pager } from '../components/pager.tsx';
import { ago, plural } from '../lib/format.ts';
import { navigate, restoreScroll, useLoc } from '../lib/router.ts';
import { useSession } from '../lib/session.ts';
import { useApi, useTitle } from '../lib/use-api.ts';

function NewPool() {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [isPublic, setPublic] = useState(true);
  const [error, setError] = useState<Error | null>(null);
  if (!open)
    return (
      <button type="button" class="btn" onClick={() => setOpen(true)}>
        New pool
      </button>
    );
  const submit = async (e: Event) => {
    e.preventDefault();
    try {
      const r = await api<PoolCreated>('/api/pools', { method: 'POST', json: { name: name.trim(), description, isPublic } });
      invalidate('/api/pools');
      navigate(`/pools/${r.pool._id}`);
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <form class="card stack" onSubmit={submit} aria-label="New pool">
      <div class="field">
        <label for="np-name">Name</label>
        <input id="np-name" required maxLength={128} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
      </div>
      <div class="field">
        <label for="np-desc">Description</label>
        <textarea id="np-desc" rows={2} value={description} onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)} />
      </div>
      <label class="radio">
        <input type="checkbox" checked={isPublic} onChange={(e) => setPublic((e.target as HTMLInputElement).checked)} /> Public
      </label>
      <ErrorNote error={error} />
      <div class="row">
        <button type="submit" class="btn btn-primary">
          Create pool
        </button>
        <button type="button" class="btn btn-ghost" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export default function PoolsPage() {
  useTitle('Pools');
  const loc = useLoc();
  const { user } = useSession();
  const page = Math.max(1, Number(loc.query.get('page')) || 1);
  const { data, error } = useApi<PoolList>(`/api/pools${toQuery({ page: page > 1 ? page : undefined, limit: 24 })}`);
  useEffect(() => {
    if (data && loc.kind === 'pop') restoreScroll();
  }, [data]);
  return (
    <div class="page">
      <div class="browse-head">
        <h1>Pools</h1>
        {data && <span class="muted">{plural(data.totalPools, 'pool')}</span>}
        <span class="grow" />
        {user && <NewPool />}
      </div>
      <p class="muted">Ordered collections of posts: comics, series, sets.</p>
      <ErrorNote error={error} />
      {!data && !error && <Loading />}
      {data && data.pools.length === 0 && (
        <Empty>
          <p>No pools yet.</p>
        </Empty>
      )}
      {data && data.pools.length > 0 && (
        <ul class="pool-list">
          {data.pools.map((p) => (
            <li key={p._id} class="card pool-card">
              <h2>
                <a href={`/pools/${p._id}`}>{p.name}</a>
                {!p.isPublic && <span class="badge badge-private">private</span>}
              </h2>
              {p.description && <p class="clamp">{p.description}</p>}
              <p class="muted">
                {plural(p.postCount, 'post')} · by <a href={`/users/${encodeURIComponent(p.creator.username)}`}>{p.creator.username}</a> · updated{' '}
                {ago(p.updatedAt)}
              </p>
            </li>
          ))}
        </ul>
      )}
      {data && <Pager page={page} totalPages={data.totalPages} />}
    </div>
  );
}
