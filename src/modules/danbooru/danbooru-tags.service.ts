import type { Deps } from '../../core/deps.ts';
import type { TagCategory } from '../tags/tag-categories.ts';
import { danbooruPage } from './danbooru-paging.ts';
import { danbooruTime } from './danbooru-time.ts';
import type { AutocompleteQuery, TagsQuery } from './danbooru-others.schemas.ts';

/** Danbooru's category numbers (2, once "faults", is unused there too). */
const NUMBER: Record<TagCategory, number> = { general: 0, artist: 1, copyright: 3, character: 4, meta: 5 };
const CATEGORY = Object.fromEntries(Object.entries(NUMBER).map(([k, v]) => [v, k])) as Record<number, TagCategory>;
const ORDERS = { count: 'tags.post_count', date: 'tags.created_at', name: 'tags.name' } as const;

const names = (raw: string) =>
  raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');

/** The ids of the tags these alias names stand for: a search by an old name finds the tag it became. */
const aliasedIds = (deps: Deps, match: (from: any) => any) => deps.db.selectFrom('tag_aliases').select('tag_aliases.tag_id').where(match);

export async function listTags(deps: Deps, q: TagsQuery) {
  const { limit, offset } = danbooruPage(q);
  let query = deps.db.selectFrom('tags').select(['tags.id', 'tags.name', 'tags.post_count', 'tags.category', 'tags.created_at']);
  const glob = q['search[name_matches]']?.trim().replaceAll(' ', '_');
  if (glob) {
    query = query.where((eb) =>
      eb.or([
        deps.db.globInsensitive(eb.ref('tags.name'), glob),
        eb(
          'tags.id',
          'in',
          aliasedIds(deps, (a) => deps.db.globInsensitive(a.ref('tag_aliases.from_name'), glob)),
        ),
      ]),
    );
  }
  if (q['search[name]'] !== undefined) {
    const wanted = ['', ...names(q['search[name]'])];
    query = query.where((eb) =>
      eb.or([
        eb('tags.name', 'in', wanted),
        eb(
          'tags.id',
          'in',
          aliasedIds(deps, (a) => a('tag_aliases.from_name', 'in', wanted)),
        ),
      ]),
    );
  }
  if (q['search[category]'] !== undefined) {
    const categories = q['search[category]'].split(',').map((c) => CATEGORY[Number(c.trim())] ?? '');
    query = query.where('tags.category', 'in', categories);
  }
  if (q['search[hide_empty]'] !== 'false') query = query.where('tags.post_count', '>', 0);
  const order = ORDERS[q['search[order]'] as keyof typeof ORDERS] ?? ORDERS.count;
  const rows = await query
    .orderBy(order, order === 'tags.name' ? 'asc' : 'desc')
    .orderBy('tags.id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
  return rows.map((t) => ({
    id: t.id,
    name: t.name,
    post_count: t.post_count,
    category: NUMBER[t.category as TagCategory] ?? 0,
    created_at: danbooruTime(t.created_at),
    // Tags keep no time of change: their creation stands in.
    updated_at: danbooruTime(t.created_at),
    is_deprecated: false,
    words: t.name.split('_').filter((w) => w !== ''),
  }));
}

/**
 * Tag names starting with the query (its `*` a wildcard), most used first, and alias names
 * starting with it, as the tag they stand for with the alias as `antecedent`. A leading `-` or `~`
 * (exclude, or) is no part of the name and is put back on the value, as Danbooru does.
 */
export async function autocomplete(deps: Deps, q: AutocompleteQuery) {
  const type = q['search[type]'] ?? 'tag_query';
  const limit = Math.min(q.limit || 10, 20);
  const raw = q['search[query]']?.trim().toLowerCase() ?? '';
  const operator = /^[-~]/.test(raw) ? raw[0] : '';
  const glob = raw.slice(operator.length).replaceAll(' ', '_');
  if ((type !== 'tag_query' && type !== 'tag') || glob.replaceAll('*', '') === '') return [];
  const pattern = glob.endsWith('*') ? glob : `${glob}*`;
  const columns = ['tags.name', 'tags.category', 'tags.post_count'] as const;
  const [direct, aliased] = await Promise.all([
    deps.db
      .selectFrom('tags')
      .select(columns)
      .where((eb) => deps.db.globInsensitive(eb.ref('tags.name'), pattern))
      .where('tags.post_count', '>', 0)
      .orderBy('tags.post_count', 'desc')
      .orderBy('tags.name')
      .limit(limit)
      .execute(),
    deps.db
      .selectFrom('tag_aliases')
      .innerJoin('tags', 'tags.id', 'tag_aliases.tag_id')
      .select([...columns, 'tag_aliases.from_name'])
      .where((eb) => deps.db.globInsensitive(eb.ref('tag_aliases.from_name'), pattern))
      .where('tags.post_count', '>', 0)
      .orderBy('tags.post_count', 'desc')
      .orderBy('tag_aliases.from_name')
      .limit(limit)
      .execute(),
  ]);
  const found = [...direct.map((t) => ({ ...t, from_name: null as string | null })), ...aliased];
  const seen = new Set<string>();
  return found
    .sort((a, b) => b.post_count - a.post_count || (a.from_name === null ? -1 : 0) - (b.from_name === null ? -1 : 0))
    .filter((t) => !seen.has(t.name) && seen.add(t.name))
    .slice(0, limit)
    .map((t) => ({
      type: 'tag-word' as const,
      label: t.name.replaceAll('_', ' '),
      value: operator + t.name,
      category: NUMBER[t.category as TagCategory] ?? 0,
      post_count: t.post_count,
      antecedent: t.from_name,
    }));
}
