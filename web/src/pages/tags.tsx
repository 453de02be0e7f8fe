import { useEffect, useState } from 'preact/hooks';
import { toQuery } from '../api/client.ts';
import type { TagList } from '../api/types.ts';
import { Empty, ErrorNote, Loading } from '../components/notice.tsx';
import { Pager } from '../components/pager.tsx';
import { StatsPanel } from '../components/stats-panel.tsx';
import { plural } from '../lib/format.ts';
import { TagLink } from '../components/tag-link.tsx';
import { CATEGORY_LABEL, CATEGORY_ORDER } from '../lib/tag-categories.ts';
import { navigate, restoreScroll, useLoc, withQuery } from '../lib/router.ts';
import { useApi, useTitle } from '../lib/use-api.ts';

const SORTS = [
  ['most_used', 'Most used'],
  ['trending', 'Trending (7 days)'],
  ['newest', 'Newest'],
  ['alphabetical', 'A to Z'],
];
const RANGES = [
  ['all', 'All time'],
  ['day', 'Last 24 hours'],
  ['week', 'Last 7 days'],
  ['month', 'Last 30 days'],
  ['year', 'Last year'],
];
const CATEGORIES = [['any', 'Any'], ...CATEGORY_ORDER.map((c) => [c, CATEGORY_LABEL[c]])];
const pick = (v: string | null, list: string[][]) => (list.some(([k]) => k === v) ? v! : list[0][0]);

export default function TagsPage() {
  useTitle('Tags');
  const loc = useLoc();
  const search = loc.query.get('search') ?? '';
  const sort = pick(loc.query.get('sort'), SORTS);
  const range = pick(loc.query.get('range'), RANGES);
  const category = pick(loc.query.get('category'), CATEGORIES);
  const page = Math.max(1, Number(loc.query.get('page')) || 1);
  const [text, setText] = useState(search);
  useEffect(() => setText(search), [search]);
  // Typing searches as you go, replacing the URL rather than adding a history entry per letter.
  useEffect(() => {
    if (text === search) return;
    const t = setTimeout(() => navigate(withQuery({ search: text.trim() || undefined, page: undefined }), { replace: true, keepScroll: true }), 250);
    return () => clearTimeout(t);
  }, [text]);
  const path = `/api/tags${toQuery({ search: search || undefined, sortBy: sort === 'most_used' ? undefined : sort, timeRange: range === 'all' ? undefined : range, category: category === 'any' ? undefined : category, page: page > 1 ? page : undefined, limit: 60 })}`;
  const { data, error } = useApi<TagList>(path);
  useEffect(() => {
    if (data && loc.kind === 'pop') restoreScroll();
  }, [data]);
  const set = (k: string) => (e: Event) => navigate(withQuery({ [k]: (e.target as HTMLSelectElement).value, page: undefined }), { keepScroll: true });

  return (
    <div class="page with-side">
      <div>
        <div class="browse-head">
          <h1>Tags</h1>
          {data && <span class="muted">{plural(data.pagination.total, 'tag')}</span>}
          <a href="/tag-relations">Aliases and implications</a>
        </div>
        <form class="filters" role="search" onSubmit={(e) => e.preventDefault()}>
          <div class="field grow">
            <label for="t-search">Find a tag</label>
            <input id="t-search" type="search" value={text} placeholder="Name contains…" onInput={(e) => setText((e.target as HTMLInputElement).value)} />
          </div>
          <Choice id="t-sort" label="Sort" value={sort} options={SORTS} onChange={set('sort')} />
          <Choice id="t-category" label="Category" value={category} options={CATEGORIES} onChange={set('category')} />
          <Choice id="t-range" label="Posts from" value={range} options={RANGES} onChange={set('range')} />
        </form>
        <ErrorNote error={error} />
        {!data && !error && <Loading />}
        {data && data.tags.length === 0 && (
          <Empty>
            <p>No tags match.</p>
          </Empty>
        )}
        {data && data.tags.length > 0 && (
          <div class="table-wrap">
            <table class="tags-table">
              <caption class="sr-only">Tags</caption>
              <thead>
                <tr>
                  <th scope="col">Tag</th>
                  <th scope="col" class="right">
                    Posts
                  </th>
                  <th scope="col" class="right">
                    Today
                  </th>
                  <th scope="col" class="right">
                    This week
                  </th>
                </tr>
              </thead>
              <tbody>
                {data.tags.map((t) => (
                  <tr key={t._id}>
                    <td>
                      <TagLink name={t.name} category={t.category} />
                    </td>
                    <td class="right num">{t.postsCount.toLocaleString()}</td>
                    <td class="right num">{t.newPostsToday ? `+${t.newPostsToday}` : <span class="muted">0</span>}</td>
                    <td class="right num">{t.newPostsThisWeek ? `+${t.newPostsThisWeek}` : <span class="muted">0</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {data && <Pager page={page} totalPages={data.pagination.totalPages} />}
      </div>
      <aside class="side">
        <StatsPanel />
      </aside>
    </div>
  );
}

/** A labelled select of the list's filters. */
function Choice({ id, label, value, options, onChange }: { id: string; label: string; value: string; options: string[][]; onChange(e: Event): void }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={onChange}>
        {options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    </div>
  );
}
