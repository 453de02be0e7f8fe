import type { Db } from '../../db/engine.ts';

/** The member's saved preferences as stored (blacklist as JSON, ratings comma-separated), or undefined when they saved none. */
export function findPreferences(db: Db, userId: number) {
  return db.selectFrom('user_preferences').select(['blacklist', 'ratings']).where('user_id', '=', userId).executeTakeFirst();
}

export interface StoredPreferences {
  blacklist: string;
  ratings: string;
  updated_at: number;
}

/** Saves the member's preferences, replacing what they had. */
export async function upsertPreferences(db: Db, userId: number, values: StoredPreferences): Promise<void> {
  await db
    .insertInto('user_preferences')
    .values({ user_id: userId, ...values })
    .onConflict((oc) => oc.column('user_id').doUpdateSet(values))
    .execute();
}
