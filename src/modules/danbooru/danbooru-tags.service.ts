import type { Deps } from '../../core/deps.ts';
import type { TagCategory } from '../../core/tag-categories.ts';
import { danbooruPage } from './danbooru-paging.ts';
import { danbooruTime } from './danbooru-time.ts';
import type { AutocompleteQuery, TagsQuery } from './danbooru-others.schemas.ts';
import { findAliasesMatching, findTags, findTagsMatching } from './danbooru-tags.repo.ts';

/** Danbooru's category numbers (2, once "faults", is unused there too). */
const NUMBER: Record<TagCategory, number> = { general: 0, artist: 1, copyright: 3, character: 4, meta: 5 };
const CATEGORY = Object.fromEntries(Object.entries(NUMBER).map(([k, v]) => [v, k])) as Record<number, TagCategory>;

const names = (raw: string) =>
  raw
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '');

export async function listTags(deps: Deps, q: TagsQuery) {
  const { limit, offset } = danbooruPage(q);
  const glob = q['search[name_matches]']?.trim().replaceAll(' ', '_');
  const rows = await findTags(deps.db, {
    glob: glob || undefined,
    names: q['search[name]'] !== undefined ? ['', ...names(q['search[name]'])] : undefined,
    categories: q['search[category]'] !== undefined ? q['search[category]'].split(',').map((c) => CATEGORY[Number(c.trim())] ?? '') : undefined,
    hideEmpty: q['search[hide_empty]'] !== 'false',
    order: q['search[order]'],
    limit,
    offset,
  });
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
  const [direct, aliased] = await Promise.all([findTagsMatching(deps.db, pattern, limit), findAliasesMatching(deps.db, pattern, limit)]);
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
