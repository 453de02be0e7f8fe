import { useState } from 'preact/hooks';
import { navigate, withQuery } from '../lib/router.ts';
import { SORTS } from '../api/types.ts';
import type { BrowseState } from './browse-query.ts';

/** Rating, sort, minimum likes and date range; each change is a new URL (so it can be shared). */
export function BrowseFilters({ state }: { state: BrowseState }) {
  const set = (changes: Record<string, string | undefined>) => navigate(withQuery({ ...changes, page: undefined }), { keepScroll: true });
  const value = (e: Event) => (e.target as HTMLInputElement).value;
  const active = state.sort !== 'newest' || state.likes || state.from || state.to || state.q || state.tags.length;
  const count = [state.sort !== 'newest' && state.order === null, state.likes, state.from, state.to, state.rating !== 'all' && state.rating !== 'safe'].filter(
    Boolean,
  ).length;
  // On a phone the filters fold away behind one button, so the grid starts near the top.
  const [open] = useState(() => count > 0 || !window.matchMedia('(max-width: 640px)').matches);
  return (
    <details class="filters-box" open={open}>
      <summary class="btn btn-small">Filters{count ? ` (${count})` : ''}</summary>
      <form class="filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for="f-rating">Rating</label>
          <select id="f-rating" value={state.rating} onChange={(e) => set({ rating: value(e) })}>
            <option value="all">All ratings</option>
            <option value="safe">Safe</option>
            <option value="sketchy">Sketchy</option>
            <option value="unsafe">Unsafe</option>
          </select>
        </div>
        {/* As wide as its text when the search's order: fills it: the field's usual width cut it off. */}
        <div class={state.order !== null ? 'field field-fit' : 'field'}>
          <label for="f-sort">Sort</label>
          {state.order !== null ? (
            // The query's order: decides (the server would refuse both): shown, not changeable here.
            <select id="f-sort" value="query" disabled title="Set by order: in the search">
              <option value="query">By the search: order:{state.order}</option>
            </select>
          ) : (
            <select id="f-sort" value={state.sort} onChange={(e) => set({ sort: value(e) === 'newest' ? undefined : value(e) })}>
              {SORTS.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label}
                </option>
              ))}
            </select>
          )}
        </div>
        <div class="field field-narrow">
          <label for="f-likes">Min. likes</label>
          {/* Uncontrolled, re-keyed by the URL's value: a re-render while results load must not wipe what is being typed. */}
          <input
            id="f-likes"
            key={state.likes ?? ''}
            type="number"
            min="0"
            step="1"
            inputMode="numeric"
            placeholder="0"
            defaultValue={state.likes ?? ''}
            onChange={(e) => set({ likes: /^\d+$/.test(value(e)) && value(e) !== '0' ? value(e) : undefined })}
          />
        </div>
        <div class="field">
          <label for="f-from">From</label>
          <input id="f-from" type="date" value={state.from} max={state.to || undefined} onChange={(e) => set({ from: value(e) || undefined })} />
        </div>
        <div class="field">
          <label for="f-to">To</label>
          <input id="f-to" type="date" value={state.to} min={state.from || undefined} onChange={(e) => set({ to: value(e) || undefined })} />
        </div>
        {active ? (
          <a class="btn btn-ghost filters-clear" href={state.rating === 'all' ? '/?rating=all' : '/'}>
            Clear filters
          </a>
        ) : null}
      </form>
    </details>
  );
}
