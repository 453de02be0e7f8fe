import { sql, type Kysely, type SqlBool } from 'kysely';
import type { DB } from '../../db/types.ts';

/**
 * Every post id in newest-first order, so a deep offset over all posts (page 20,000) is one array
 * read plus a keyset query instead of walking half a million index entries. New posts only ever
 * come first, so an upload prepends; anything else (a delete) reloads. Kept per process.
 */
export class NewestOrder {
  /** Offsets from which pages are served through this order (smaller ones are cheap in SQL). */
  constructor(readonly from = 10_000) {}

  private ids = new Int32Array(0);
  private total = -1;
  private maxId = 0;
  private newestAt = -Infinity;

  private async state(db: Kysely<DB>) {
    const row = await db
      .selectFrom('counters')
      .select(['value', sql<number>`(SELECT max(id) FROM posts)`.as('maxId')])
      .where('name', '=', 'posts')
      .executeTakeFirstOrThrow();
    return { total: Number(row.value), maxId: Number(row.maxId ?? 0) };
  }

  /** The id at a newest-first offset, or null when past the end. */
  async idAt(db: Kysely<DB>, offset: number): Promise<number | null> {
    const now = await this.state(db);
    if (now.total !== this.total || now.maxId !== this.maxId) {
      const added = now.total - this.total;
      const newer = this.total >= 0 && added > 0
        ? await db.selectFrom('posts').select(['id', 'created_at']).where('id', '>', this.maxId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute()
        : null;
      // Prepend only when nothing was deleted and every new post is newer than all the others.
      if (newer && newer.length === added && newer[newer.length - 1].created_at >= this.newestAt) {
        const next = new Int32Array(this.ids.length + added);
        next.set(newer.map((r) => r.id));
        next.set(this.ids, added);
        this.ids = next;
        this.newestAt = newer[0].created_at;
      } else {
        // Read in keyset batches into a typed array: a million row objects at once would cost ~100 MB.
        const ids = new Int32Array(now.total + 1024);
        let n = 0;
        this.newestAt = -Infinity;
        let last: { created_at: number; id: number } | undefined;
        for (;;) {
          let q = db.selectFrom('posts').select(['id', 'created_at']).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(20_000);
          if (last) {
            const { created_at, id } = last;
            q = q.where(sql<SqlBool>`(created_at, id) < (${created_at}, ${id})`);
          }
          const rows = await q.execute();
          if (rows.length === 0) break;
          if (n === 0) this.newestAt = rows[0].created_at;
          for (const r of rows) if (n < ids.length) ids[n++] = r.id;
          last = rows[rows.length - 1];
        }
        this.ids = ids.slice(0, n);
      }
      this.total = now.total;
      this.maxId = now.maxId;
    }
    return offset < this.ids.length ? this.ids[offset] : null;
  }
}
