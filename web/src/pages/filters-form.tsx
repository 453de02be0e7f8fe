// The Filters section of settings: the blacklist (one search per line) and the ratings shown,
// saved at PUT /api/users/me/preferences. A refused line is named with its line and character.
import { useState } from 'preact/hooks';
import { api, ApiError, invalidate } from '../api/client.ts';
import { type Preferences, RATINGS, type Rating } from '../api/types.ts';
import { ErrorNote, Loading, SaveFooter } from '../components/notice.tsx';
import { useApi } from '../lib/use-api.ts';

const PREFERENCES = '/api/users/me/preferences';

/** The non-blank lines as entries, with the line number (from 1) each came from. */
function entriesOf(text: string): { entries: string[]; lines: number[] } {
  const entries: string[] = [];
  const lines: number[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    entries.push(line.trim());
    lines.push(i + 1);
  });
  return { entries, lines };
}

/** A refusal of one entry in the words of the editor: its line and character. */
function explain(err: unknown, lines: number[]): Error | string {
  if (!(err instanceof ApiError)) return err as Error;
  const detail = err.body.details?.find((d) => /^blacklist\[\d+\]$/.test(d.field));
  if (!detail) return err;
  const line = lines[Number(detail.field.slice(10, -1))];
  const at = detail.position === undefined ? '' : `, character ${detail.position + 1}`;
  return `Line ${line}${at}: ${detail.message}`;
}

export function FiltersForm() {
  const { data, error: unread } = useApi<Preferences>(PREFERENCES);
  return (
    <section id="filters" class="card stack" aria-labelledby="filters-h">
      <h2 id="filters-h">Filters</h2>
      {unread ? <ErrorNote error={unread} /> : !data ? <Loading label="Loading your filters…" /> : <FiltersEditor stored={data} />}
    </section>
  );
}

/**
 * The editor, shown once the stored filters are read and starting from them: filled in by an
 * effect after its first drawing instead, it showed an empty blacklist for a moment, which a
 * quick save would have stored.
 */
function FiltersEditor({ stored }: { stored: Preferences }) {
  const [text, setText] = useState(() => stored.blacklist.join('\n'));
  const [ratings, setRatings] = useState<Rating[]>(() => stored.ratings);
  const [error, setError] = useState<Error | string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  const toggle = (r: Rating, on: boolean) => setRatings((now) => RATINGS.filter((x) => (x === r ? on : now.includes(x))));
  const submit = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    if (ratings.length === 0) return setError('Choose at least one rating to show.');
    const { entries, lines } = entriesOf(text);
    setBusy(true);
    setError(null);
    try {
      const answer = await api<Preferences>(PREFERENCES, { method: 'PUT', json: { blacklist: entries, ratings } });
      setText(answer.blacklist.join('\n'));
      // Every list read before is now filtered otherwise.
      invalidate('/api/posts');
      invalidate(PREFERENCES);
      setSaved(true);
    } catch (err) {
      setError(explain(err, lines));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="stack" onSubmit={submit}>
      <div class="field">
        <label for="s-blacklist">Blacklist</label>
        <textarea
          id="s-blacklist"
          rows={5}
          spellcheck={false}
          placeholder={'one search per line, e.g.\nspiders\nrating:unsafe gore'}
          value={text}
          onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
        />
        <small class="muted">
          Posts matching any line are left out of your lists and searches (they still open from a link). Each line is a search in the{' '}
          <a href="/help/search">search syntax</a>, at most 100 lines.
        </small>
      </div>
      <fieldset class="field">
        <legend>Ratings shown</legend>
        {RATINGS.map((r) => (
          <label key={r} class="radio">
            <input type="checkbox" checked={ratings.includes(r)} onChange={(e) => toggle(r, (e.target as HTMLInputElement).checked)} /> {r}
          </label>
        ))}
        <small class="muted">A search that names a rating (rating:unsafe, or the rating filter) shows that rating anyway.</small>
      </fieldset>
      <SaveFooter error={error} saved={saved && 'Filters saved.'} busy={busy} label="Save filters" />
    </form>
  );
}
