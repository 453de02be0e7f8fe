import type { Rating } from '../../core/schemas.ts';
import type { Db } from '../../db/engine.ts';
import type { TagCategory } from '../../core/tag-categories.ts';
import type { CommentJson, ImportedFrom, PostSidecar } from './export-format.ts';
import * as repo from './exports.repo.ts';

/** A post's sidecar as read from the database: all but the facts of the file, known once it is copied. */
export type PostRecord = Omit<PostSidecar, 'file'> & { mime: string; storedPath: string };

const iso = (ms: number) => new Date(Number(ms)).toISOString();

/** Groups rows by a key, keeping their order. */
function groupBy<T>(rows: T[], key: (row: T) => number): Map<number, T[]> {
  const out = new Map<number, T[]>();
  for (const r of rows) {
    const k = key(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

/** What earlier imports recorded of these posts or comments (their origin, its author, votes there). */
async function importRecords(db: Db, kind: 'post' | 'comment', ids: number[]) {
  if (ids.length === 0) return new Map<number, (ImportedFrom & { score: number | null; fav_count: number | null })[]>();
  const rows = await repo.importRecordsOf(db, kind, ids);
  const out = groupBy(rows, (r) => Number(r.local_id));
  return new Map(
    [...out].map(([id, list]) => [
      id,
      list.map((r) => ({ origin: r.origin, origin_id: r.origin_id, author: r.author, score: r.score, fav_count: r.fav_count })),
    ]),
  );
}

/** A post's comments, oldest first, with their authors' names. */
async function commentsOf(db: Db, ids: number[]): Promise<Map<number, CommentJson[]>> {
  const rows = await repo.commentsOnPosts(db, ids);
  // Comment ids in chunks: a batch of posts may have many comments, and a statement takes a bounded number of parameters.
  const imported = new Map<number, ImportedFrom[]>();
  for (let i = 0; i < rows.length; i += 500) {
    const found = await importRecords(
      db,
      'comment',
      rows.slice(i, i + 500).map((r) => r.id),
    );
    for (const [id, list] of found)
      imported.set(
        id,
        list.map(({ origin, origin_id, author }) => ({ origin, origin_id, author })),
      );
  }
  const out = new Map<number, CommentJson[]>();
  for (const [postId, list] of groupBy(rows, (r) => r.post_id)) {
    out.set(
      postId,
      list.map((r) => ({
        id: r.id,
        author: r.username,
        body: r.content,
        created_at: iso(r.created_at),
        parent_id: r.parent_id,
        imported: imported.get(r.id) ?? [],
      })),
    );
  }
  return out;
}

/** The posts of `ids` (ascending) with everything their sidecars say; posts deleted since they were listed are left out. */
export async function readPosts(db: Db, ids: number[]): Promise<PostRecord[]> {
  if (ids.length === 0) return [];
  const posts = await repo.postsByIds(db, ids);
  const tags = await repo.tagsOfPosts(db, ids);
  const pools = await repo.poolsOfPosts(db, ids);
  const tagsOf = groupBy(tags, (r) => r.post_id);
  const poolsOf = groupBy(pools, (r) => r.post_id);
  const comments = await commentsOf(db, ids);
  const imported = await importRecords(db, 'post', ids);
  return posts.map((p) => ({
    id: p.id,
    sha256: p.sha256,
    md5: p.md5,
    mime: p.mime,
    storedPath: p.file_path,
    title: p.title,
    description: p.description,
    rating: p.content_rating as Rating,
    source: p.source,
    created_at: iso(p.created_at),
    parent_id: p.parent_id,
    uploader: p.username,
    // Sorted here, not by the database: PostgreSQL's collation may order `_` otherwise than SQLite.
    tags: (tagsOf.get(p.id) ?? []).map((t) => ({ name: t.name, category: t.category as TagCategory })).sort((a, b) => (a.name < b.name ? -1 : 1)),
    pools: (poolsOf.get(p.id) ?? []).map((r) => ({ id: r.pool_id, position: r.position })),
    like_count: p.like_count,
    favorite_count: p.favorite_count,
    comments: comments.get(p.id) ?? [],
    imported: imported.get(p.id) ?? [],
  }));
}
