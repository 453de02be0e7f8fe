// The Saved searches section of the settings: the list (each a link to its results), a form to
// save one, and delete. What they match arrives in the feed (/feed), counted in the header.
import { useState } from 'preact/hooks';
import { api, invalidate } from '../api/client.ts';
import type { SavedSearch, SavedSearchList } from '../api/types.ts';
import { ErrorNote, Loading } from '../components/notice.tsx';
import { useApi } from '../lib/use-api.ts';

const SAVED = '/api/saved-searches';

function SearchRow({ s, onChange }: { s: SavedSearch; onChange(): void }) {
  const [error, setError] = useState<Error | null>(null);
  const remove = async () => {
    try {
      await api(`${SAVED}/${encodeURIComponent(s.id)}`, { method: 'DELETE' });
      onChange();
    } catch (err) {
      setError(err as Error);
    }
  };
  return (
    <li class="row saved-search" data-testid="saved-search">
      <strong>{s.name}</strong>{' '}
      <a href={`/?q=${encodeURIComponent(s.q)}`} class="mono">
        {s.q}
      </a>
      <button type="button" class="btn btn-ghost btn-small link-danger" onClick={remove} aria-label={`Delete saved search ${s.name}`}>
        Delete
      </button>
      <ErrorNote error={error} />
    </li>
  );
}

export function SavedSearches() {
  const { data, error, reload } = useApi<SavedSearchList>(SAVED);
  const [name, setName] = useState('');
  const [q, setQ] = useState('');
  const [saveError, setSaveError] = useState<Error | null>(null);
  const changed = () => {
    invalidate(SAVED);
    reload();
  };
  const save = async (e: Event) => {
    e.preventDefault();
    setSaveError(null);
    try {
      await api(SAVED, { method: 'POST', json: { name: name.trim(), q: q.trim() } });
      setName('');
      setQ('');
      changed();
    } catch (err) {
      setSaveError(err as Error);
    }
  };
  return (
    <section id="saved-searches" class="card stack" aria-labelledby="saved-h">
      <h2 id="saved-h">Saved searches</h2>
      <p class="muted">
        New posts that match any of them go to <a href="/feed">your feed</a>; the header counts the ones you have not seen.
      </p>
      <ErrorNote error={error} />
      {!data && !error && <Loading />}
      {data && data.savedSearches.length > 0 && (
        <ul class="stack saved-list">
          {data.savedSearches.map((s) => (
            <SearchRow key={s.id} s={s} onChange={changed} />
          ))}
        </ul>
      )}
      {data && data.savedSearches.length === 0 && <p class="muted">No saved searches yet.</p>}
      <form class="row key-form" onSubmit={save}>
        <div class="field">
          <label for="ss-name">Name</label>
          <input id="ss-name" required maxLength={100} value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </div>
        <div class="field grow">
          <label for="ss-q">Search</label>
          <input id="ss-q" required maxLength={1000} value={q} placeholder="e.g. cat rating:safe" onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
        </div>
        <button type="submit" class="btn btn-primary">
          Save search
        </button>
      </form>
      <ErrorNote error={saveError} />
    </section>
  );
}
