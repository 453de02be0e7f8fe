import type { Db } from '../../db/engine.ts';
import { findUserIdByName } from '../../db/queries/user-ids.ts';
import { MAP_ENTRY, stringBytes } from '../../core/heap-estimate.ts';

/** How many ids are kept before the memory is emptied and filled again from what is asked. */
const KEPT = 50_000;

/**
 * User ids by name (case-insensitive), kept in memory for searches by `user:` and `fav:`, because
 * a name once taken (there is no rename, and no user is deleted) names that user for good. A name with no user is
 * not kept (someone may sign up with it), so it is looked up each time it is asked.
 */
export class UserIds {
  private readonly ids = new Map<string, number>();

  constructor(private readonly kept = KEPT) {}

  /** Bytes held, estimated: a map entry and the name's text each (the ids are small integers, kept in the entry). */
  bytes(): number {
    let sum = 0;
    for (const name of this.ids.keys()) sum += MAP_ENTRY + stringBytes(name);
    return sum;
  }

  /** The id of the user with this name, or undefined when there is none. */
  async of(db: Db, name: string): Promise<number | undefined> {
    const key = name.toLowerCase();
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    const id = await findUserIdByName(db, key);
    if (id !== undefined) {
      if (this.ids.size >= this.kept) this.ids.clear();
      this.ids.set(key, id);
    }
    return id;
  }
}
