// What the import tests share: running `imageboard import` against a suite's board, and a board's
// posts as a user would compare two boards (by the bytes of each original, not by ids).
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { importCommand } from '../src/cli/import.ts';
import type { DB } from '../src/db/types.ts';
import type { MediaStore } from '../src/storage/media-store.ts';
import { commandEnv, type Ctx } from './helpers.ts';

export interface CommandRun {
  code: number;
  out: string;
  err: string;
}

/** `imageboard import ...` against the suite's board (env added to the suite's DATA_DIR and DATABASE_URL). */
export async function importRun(ctx: Ctx, args: string[], env: Record<string, string> = {}): Promise<CommandRun> {
  let out = '';
  let err = '';
  const io = { env: { ...(await commandEnv(ctx)), ...env }, out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } };
  const code = await importCommand(args, io);
  return { code, out, err };
}

/** The summary's counts: `Imported 3 posts; 1 already here ...` as numbers. */
export function summaryCounts(out: string) {
  const m =
    /(?:Imported|Would import) (\d+) posts; (\d+) already here \(tags merged\), (\d+) imported before, (\d+) failed, (\d+) unreadable, of (\d+) read/.exec(out);
  if (!m) throw new Error(`no summary in: ${out}`);
  const [imported, matched, skipped, failed, unreadable, read] = m.slice(1).map(Number);
  return { imported, matched, skipped, failed, unreadable, read };
}

/** The report file's lines. */
/** How many posts the board holds. */
export const countPosts = async (ctx: Ctx) =>
  Number(
    (
      await ctx.database
        .selectFrom('posts')
        .select((e) => e.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

export const reportLines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { item: string; status: string; reason: string; origin?: string; originId?: string | null; postId?: string });

export interface PostView {
  sha256: string;
  title: string;
  description: string;
  rating: string;
  source: string | null;
  createdAt: number;
  /** The parent's original, by its bytes' sha256. */
  parent: string | null;
  /** `name:category`, sorted. */
  tags: string[];
  /** `pool name #place` (1 = first), sorted. */
  pools: string[];
  comments: string[];
  uploader: string;
}

async function bytesOf(media: MediaStore, rel: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await media.read(rel)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Every post of a board, keyed by the sha256 of its stored original (what an export carries and an import stores). */
export async function boardView(db: Kysely<DB>, media: MediaStore): Promise<Map<string, PostView>> {
  const posts = await db
    .selectFrom('posts')
    .innerJoin('users', 'users.id', 'posts.uploader_id')
    .select(['posts.id', 'file_path', 'title', 'description', 'content_rating', 'source', 'posts.created_at', 'parent_id', 'users.username'])
    .orderBy('posts.id')
    .execute();
  const shaOf = new Map<number, string>();
  for (const p of posts)
    shaOf.set(
      p.id,
      createHash('sha256')
        .update(await bytesOf(media, p.file_path))
        .digest('hex'),
    );
  const tags = await db.selectFrom('post_tags').innerJoin('tags', 'tags.id', 'post_tags.tag_id').select(['post_id', 'name', 'category']).execute();
  // A pool's places by rank: what a reader sees is the order, not the numbers kept for it.
  const pools = (
    await db
      .selectFrom('pool_posts')
      .innerJoin('pools', 'pools.id', 'pool_posts.pool_id')
      .select(['pool_id', 'post_id', 'name'])
      .orderBy('pool_id')
      .orderBy('position')
      .execute()
  ).map((row, i, all) => ({ ...row, position: all.slice(0, i + 1).filter((r) => r.pool_id === row.pool_id).length }));
  const comments = await db.selectFrom('comments').select(['post_id', 'content']).orderBy('id').execute();
  const view = new Map<string, PostView>();
  for (const p of posts) {
    view.set(shaOf.get(p.id)!, {
      sha256: shaOf.get(p.id)!,
      title: p.title,
      description: p.description,
      rating: p.content_rating,
      source: p.source,
      createdAt: p.created_at,
      parent: p.parent_id === null ? null : (shaOf.get(p.parent_id) ?? `missing ${p.parent_id}`),
      tags: tags
        .filter((t) => t.post_id === p.id)
        .map((t) => `${t.name}:${t.category}`)
        .sort(),
      pools: pools
        .filter((t) => t.post_id === p.id)
        .map((t) => `${t.name} #${t.position}`)
        .sort(),
      comments: comments.filter((c) => c.post_id === p.id).map((c) => c.content),
      uploader: p.username,
    });
  }
  return view;
}
