import type { Database } from '../../db/engine.ts';
import { findUserNames } from './users.repo.ts';

/** How many names are kept before the memory is emptied and filled again from what is asked. */
const KEPT = 50_000;

/**
 * Usernames by user id, kept in memory. A name never changes once taken (there is no rename) and a
 * user is never deleted, so a name read once stays true; ids asked for and not yet known are read
 * in one statement. A page of 200 Danbooru posts names their uploaders: a join to users in the
 * page's statement was one more B-tree lookup a row, where most pages name the same few hundred
 * active uploaders.
 */
export class UserNames {
  private readonly names = new Map<number, string>();

  constructor(private readonly kept = KEPT) {}

  /** The names of the given users; an id with no user is left out. */
  async of(db: Database, ids: Iterable<number>): Promise<Map<number, string>> {
    const found = new Map<number, string>();
    const missing = new Set<number>();
    for (const id of ids) {
      if (found.has(id)) continue;
      const name = this.names.get(id);
      if (name !== undefined) found.set(id, name);
      else missing.add(id);
    }
    if (missing.size === 0) return found;
    const rows = await findUserNames(db, [...missing]);
    if (this.names.size + rows.length > this.kept) this.names.clear();
    for (const r of rows) {
      this.names.set(r.id, r.username);
      found.set(r.id, r.username);
    }
    return found;
  }
}
