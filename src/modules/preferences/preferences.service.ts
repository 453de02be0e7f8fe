import type { Deps, Viewer } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { RATINGS, type Rating } from '../../core/schemas.ts';
import { checkEntry, type ListFilters } from '../../search/filters.ts';
import { QueryError } from '../../search/parse.ts';
import { findPreferences, upsertPreferences } from './preferences.repo.ts';
import type { Preferences } from './preferences.schemas.ts';

/** A member who saved nothing: nothing hidden. */
export const DEFAULTS: Preferences = { blacklist: [], ratings: [...RATINGS] };

/** A member's saved preferences, or the defaults. Read from the database every time: a PUT on any instance applies at once on all. */
export async function getPreferences(deps: Pick<Deps, 'db'>, viewer: Viewer): Promise<Preferences> {
  const row = await findPreferences(deps.db, viewer.id);
  if (!row) return { blacklist: [...DEFAULTS.blacklist], ratings: [...DEFAULTS.ratings] };
  return { blacklist: JSON.parse(row.blacklist) as string[], ratings: row.ratings.split(',') as Rating[] };
}

/** Replaces the member's preferences after checking each blacklist entry as a search would (a 400 naming `blacklist[i]` and the position). */
export async function putPreferences(deps: Pick<Deps, 'db' | 'clock'>, viewer: Viewer, input: Preferences): Promise<Preferences> {
  const now = deps.clock.now();
  for (const [i, entry] of input.blacklist.entries()) {
    try {
      await checkEntry(entry, now);
    } catch (err) {
      if (!(err instanceof QueryError)) throw err;
      const field = `blacklist[${i}]`;
      throw new AppError(400, `${field}: ${err.reason} (at character ${err.position})`, {
        details: [{ field, message: err.reason, position: err.position }],
      });
    }
  }
  const values = { blacklist: JSON.stringify(input.blacklist), ratings: input.ratings.join(','), updated_at: now };
  await upsertPreferences(deps.db, viewer.id, values);
  return { blacklist: input.blacklist, ratings: input.ratings };
}

/**
 * The filters GET /api/posts applies for a viewer: a member's own, a visitor's from VISITOR_RATINGS;
 * undefined when they would hide nothing, so such a request does no more work than before.
 */
export async function listFilters(deps: Pick<Deps, 'db' | 'config'>, viewer: Viewer | null): Promise<ListFilters | undefined> {
  const f: ListFilters = viewer ? await getPreferences(deps, viewer) : { ratings: deps.config.visitorRatings, blacklist: [] };
  const allRatings = !f.ratings || RATINGS.every((r) => f.ratings!.includes(r));
  return allRatings && f.blacklist.length === 0 ? undefined : f;
}
