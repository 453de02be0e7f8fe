import type { Kysely } from 'kysely';
import type { DB, ImportRecordsTable } from '../../db/types.ts';

type Kind = ImportRecordsTable['kind'];

/** The row made here for what came from `origin` as `originId`, or null when it was never imported. */
export async function recordOf(db: Kysely<DB>, kind: Kind, origin: string, originId: string): Promise<number | null> {
  const row = await db
    .selectFrom('import_records')
    .select('local_id')
    .where('kind', '=', kind)
    .where('origin', '=', origin)
    .where('origin_id', '=', originId)
    .executeTakeFirst();
  return row ? row.local_id : null;
}

/** The rows made here for many ids at one origin (those imported), by origin id. */
export async function recordsOf(db: Kysely<DB>, kind: Kind, origin: string, originIds: string[]): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (let i = 0; i < originIds.length; i += 500) {
    const rows = await db
      .selectFrom('import_records')
      .select(['origin_id', 'local_id'])
      .where('kind', '=', kind)
      .where('origin', '=', origin)
      .where('origin_id', 'in', originIds.slice(i, i + 500))
      .execute();
    for (const r of rows) found.set(r.origin_id, r.local_id);
  }
  return found;
}

export interface NewRecord {
  kind: Kind;
  origin: string;
  originId: string;
  localId: number;
  author?: string | null;
  score?: number | null;
  favCount?: number | null;
}

/** Notes what was imported, in the transaction that wrote it. */
export async function addRecord(db: Kysely<DB>, r: NewRecord, now: number): Promise<void> {
  await db
    .insertInto('import_records')
    .values({
      kind: r.kind,
      origin: r.origin.slice(0, 200),
      origin_id: r.originId.slice(0, 100),
      local_id: r.localId,
      author: r.author?.slice(0, 100) ?? null,
      score: r.score ?? null,
      fav_count: r.favCount ?? null,
      created_at: now,
    })
    .execute();
}

/** What an import kept of a post's origin (the export writes it back out), or undefined. */
export async function postOrigin(db: Kysely<DB>, postId: number) {
  return db
    .selectFrom('import_records')
    .select(['origin', 'origin_id', 'author', 'score', 'fav_count'])
    .where('kind', '=', 'post')
    .where('local_id', '=', postId)
    .orderBy('created_at')
    .executeTakeFirst();
}
