import type { Deps, Viewer } from '../../core/deps.ts';
import { asViewer } from '../../core/auth.ts';
import { conflict, notFound } from '../../core/errors.ts';
import { toId } from '../../core/ids.ts';
import { iso } from '../../core/schemas.ts';
import { EVENT } from '../../db/schema/events.ts';
import { checkQuery, matchingPosts } from '../events/events.service.ts';
import { newestEvent, type StoredEvent } from '../events/events.repo.ts';
import { everyRound, followRound } from '../events/rounds.ts';
import type { PostsService } from '../posts/posts.service.ts';
import { listItems } from '../posts/posts.repo.ts';
import { listFilters } from '../preferences/preferences.service.ts';
import * as repo from './saved-searches.repo.ts';
import type { FeedQuery, NewSavedSearch, SavedSearchChange } from './saved-searches.schemas.ts';

/** Saved searches a member may hold. */
export const MAX_SAVED_SEARCHES = 50;

const searchJson = (s: repo.SavedSearchRow) => ({ id: String(s.id), name: s.name, q: s.q, createdAt: iso(s.created_at) });

export async function listSavedSearches(deps: Deps, viewer: Viewer) {
  return { savedSearches: (await repo.searchesOf(deps.db, viewer.id)).map(searchJson) };
}

export async function createSavedSearch(deps: Deps, posts: PostsService, viewer: Viewer, body: NewSavedSearch) {
  const q = body.q.trim();
  await checkQuery(posts, { q });
  if ((await repo.searchesOf(deps.db, viewer.id)).length >= MAX_SAVED_SEARCHES)
    conflict(`A member holds at most ${MAX_SAVED_SEARCHES} saved searches: delete one first`);
  return searchJson(
    await repo.insertSearch(deps.db, { user_id: viewer.id, name: body.name.trim(), q, after_seq: await newestEvent(deps.db), created_at: deps.clock.now() }),
  );
}

async function ownSearch(deps: Deps, viewer: Viewer, rawId: string): Promise<repo.SavedSearchRow> {
  const id = toId(rawId);
  return (id === null ? undefined : await repo.searchOf(deps.db, viewer.id, id)) ?? notFound('Saved search', rawId);
}

export async function changeSavedSearch(deps: Deps, posts: PostsService, viewer: Viewer, rawId: string, body: SavedSearchChange) {
  const row = await ownSearch(deps, viewer, rawId);
  const q = body.q?.trim();
  if (q !== undefined) await checkQuery(posts, { q });
  // A new query applies to the posts made from now on, as a new search would.
  const change = { ...(body.name !== undefined ? { name: body.name.trim() } : {}), ...(q !== undefined ? { q, after_seq: await newestEvent(deps.db) } : {}) };
  await repo.updateSearch(deps.db, row.id, change);
  return searchJson((await repo.searchOf(deps.db, viewer.id, row.id))!);
}

export async function deleteSavedSearch(deps: Deps, viewer: Viewer, rawId: string) {
  const row = await ownSearch(deps, viewer, rawId);
  await repo.deleteSearch(deps.db, viewer.id, row.id);
  return { message: 'Saved search deleted' };
}

/** The member's feed, newest first, with how many posts came since they last marked it seen. */
export async function feed(deps: Deps, viewer: Viewer, q: FeedQuery) {
  const seen = await repo.seenUpTo(deps.db, viewer.id);
  const page = await repo.feedPage(deps.db, viewer.id, seen, q.limit ?? 24, q.offset ?? 0);
  const posts = page.ids.length ? await listItems(deps.db, page.ids, deps.config) : [];
  return { posts, unseen: page.unseen, total: page.total };
}

/** Marks everything in the feed now as seen. */
export async function markFeedSeen(deps: Deps, viewer: Viewer) {
  await repo.markSeen(deps.db, viewer.id, await repo.newestInFeed(deps.db, viewer.id));
  return { unseen: 0 };
}

/**
 * Adds the new posts of the events after the counter 'saved_searches' to the feeds of the members
 * whose saved searches match them (with their ratings and blacklist), and moves the counter, in
 * one transaction; when another instance did the same events first, this round's work is dropped.
 */
export async function feedRound(deps: Deps, posts: PostsService): Promise<number> {
  const searches = await repo.allSearches(deps.db);
  const after = searches.length ? Math.min(...searches.map((s) => Number(s.after_seq))) : null;
  return followRound(deps.db, 'saved_searches', after, (batch) => feedRows(deps, posts, searches, batch), repo.addToFeeds);
}

/** The feeds' new rows for a batch of events: each new post, for each member one of whose searches (saved before it) matches it. */
async function feedRows(deps: Deps, posts: PostsService, searches: Awaited<ReturnType<typeof repo.allSearches>>, batch: StoredEvent[]) {
  const seqOf = new Map(batch.filter((e) => e.kind === EVENT.postCreated).map((e) => [e.postId, e.seq]));
  const rows: { user_id: number; post_id: number; seq: number }[] = [];
  if (seqOf.size === 0) return rows;
  const ids = [...seqOf.keys()];
  const byUser = new Map<number, typeof searches>();
  for (const s of searches) byUser.set(s.user_id, [...(byUser.get(s.user_id) ?? []), s]);
  for (const [userId, theirs] of byUser) {
    const filters = await listFilters(deps, asViewer({ ...theirs[0], id: userId }));
    const matched = new Set<number>();
    for (const search of theirs) {
      const newer = ids.filter((id) => seqOf.get(id)! > search.after_seq);
      if (newer.length) for (const id of await matchingPosts(posts, filters, { q: search.q }, newer)) matched.add(id);
    }
    for (const id of matched) rows.push({ user_id: userId, post_id: id, seq: seqOf.get(id)! });
  }
  return rows;
}

/** The saved searches' round of one app (made in src/services.ts; run where jobs run). */
export function createSavedSearchesService(deps: Deps, posts: PostsService, log: (err: unknown, what: string) => void) {
  return everyRound(
    async () => {
      while ((await feedRound(deps, posts)) > 0) {}
    },
    log,
    'saved searches',
  );
}
