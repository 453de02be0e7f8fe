import { createHash } from 'node:crypto';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { MAX_LIST_LIMIT, pagingOf } from './danbooru-paging.ts';
import type { RelationsQuery } from './danbooru-relations.schemas.ts';
import { danbooruTime } from './danbooru-time.ts';
import { findAliases, findImplications, type RelationSearch } from './danbooru-tags.repo.ts';

/**
 * An id for a row that has none (our aliases are keyed by name, implications by two tag ids):
 * 52 bits of a hash of its key, so it stays a safe JSON integer and the same on every request,
 * whatever else is added or removed. A row number would shift when an older row went away, and
 * importers keep ids to know what they have already read.
 */
export function relationId(kind: 'alias' | 'implication', ...key: (string | number)[]): number {
  const hex = createHash('sha256')
    .update([kind, ...key].join('\0'))
    .digest('hex');
  return Number.parseInt(hex.slice(0, 13), 16) || 1;
}

/** Danbooru splits these lists on spaces; commas too here (no tag name holds either). */
const nameList = (raw: string) =>
  raw
    .toLowerCase()
    .split(/[\s,]+/)
    .filter((s) => s !== '');

/** The numbered page; b/a cursors page by id, and these ids are hashes, in no order. */
function numberedPage(q: RelationsQuery) {
  const paging = pagingOf(q, MAX_LIST_LIMIT);
  if (paging.cursor) throw new AppError(400, 'page: tag aliases and implications are paged by number (their ids are derived, in no order)');
  return paging;
}

/**
 * Danbooru's search[...] over the two names, or null when the search matches nothing at all (a
 * status other than active: every relation here is in force, none pending).
 */
function relationSearch(q: RelationsQuery): RelationSearch | null {
  const status = q['search[status]']?.trim().toLowerCase();
  // Danbooru's `approved` means active, processing or queued: only active ones exist here.
  if (status && status !== 'active' && status !== 'approved') return null;
  const glob = q['search[name_matches]']?.trim().toLowerCase().replace(/\s+/g, '_');
  return {
    antecedentNames: nameList(q['search[antecedent_name]'] ?? ''),
    consequentNames: nameList(q['search[consequent_name]'] ?? ''),
    glob: glob || undefined,
  };
}

function relationObject(id: number, r: { antecedent: string; consequent: string; creator_id: number | null; created_at: number }) {
  const time = danbooruTime(r.created_at);
  return {
    id,
    antecedent_name: r.antecedent,
    consequent_name: r.consequent,
    creator_id: r.creator_id,
    // A moderator makes it and it is in force at once: they approved it too.
    approver_id: r.creator_id,
    forum_topic_id: null,
    forum_post_id: null,
    status: 'active' as const,
    reason: '' as const,
    created_at: time,
    // Relations are made and removed, never edited.
    updated_at: time,
  };
}

/** GET /tag_aliases.json: newest first, as Danbooru lists by id. */
export async function listAliases(deps: Deps, q: RelationsQuery) {
  const { limit, offset } = numberedPage(q);
  const search = relationSearch(q);
  if (!search) return [];
  const rows = await findAliases(deps.db, search, limit, offset);
  // Keyed by the target's id, not its name: a rename of the tag keeps the alias's id.
  return rows.map((r) => relationObject(relationId('alias', r.antecedent, r.tag_id), r));
}

/** GET /tag_implications.json: newest first, as Danbooru lists by id. */
export async function listImplications(deps: Deps, q: RelationsQuery) {
  const { limit, offset } = numberedPage(q);
  const search = relationSearch(q);
  if (!search) return [];
  const rows = await findImplications(deps.db, search, limit, offset);
  return rows.map((r) => relationObject(relationId('implication', r.from_id, r.to_id), r));
}
