import path from 'node:path';
import type { Deps } from '../../core/deps.ts';
import { QueryError } from '../../search/parse.ts';
import { allMatchingPosts } from '../../search/engine.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { type BoardCounts, type Memberships, writeBoardFiles } from './export-board.ts';
import { copyWhole, type FileFacts, factsOf, readJson, writeWhole } from './export-files.ts';
import { claimFolder, fanOut, finishFolder } from './export-folder.ts';
import { ExportError, FORMAT, type Manifest, mediaName, type PostSidecar, sidecarName, VERSION } from './export-format.ts';
import { type PostRecord, readPosts } from './export-posts.ts';
import * as repo from './exports.repo.ts';

/** Posts read and written a page at a time: memory holds one page, whatever the board's size. */
const BATCH = 500;
/** Media files copied at once: a bucket's round trips, not the disk, set the pace. */
const CONCURRENCY = 4;

export interface ExportOptions {
  /** A search query (docs/search.md): only the posts it matches, and the tags and pools they have. */
  q: string | null;
  onProgress?(done: number, total: number): void;
}

export interface ExportSummary extends BoardCounts {
  manifest: Manifest;
  /** Bytes of the media files exported. */
  bytes: number;
  /** Posts left out because their original is missing from the media store (`imageboard media check` finds them). */
  missing: number[];
}

/** The origin board's name in the export: its PUBLIC_URL's host, which names it to others too. */
export const boardName = (publicUrl: string): string => (publicUrl ? new URL(publicUrl).host : 'imageboard');

/** The statement selecting the exported posts' ids: every post, or those `q` matches now. */
async function matchingPosts(deps: Deps, q: string | null): Promise<repo.MatchingPosts> {
  if (q === null) return repo.allPostIds();
  try {
    return await allMatchingPosts(deps, q);
  } catch (err) {
    if (!(err instanceof QueryError)) throw err;
    throw new ExportError(`--q: ${err.reason} (at character ${err.position})`);
  }
}

/** A file an earlier run of this export wrote for the same post, when whole: it is not read from the store again. */
async function alreadyWritten(file: string, sidecar: string, p: PostRecord, name: string): Promise<FileFacts | null> {
  const before = (await readJson(sidecar)) as Partial<PostSidecar> | null;
  if (before?.sha256 !== p.sha256 || before.file?.name !== name) return null;
  const facts = await factsOf(file);
  return facts && facts.sha256 === before.file.sha256 && facts.bytes === before.file.bytes ? facts : null;
}

/** The original, streamed from the store into `file`; null when the store has none. */
async function copyOriginal(media: MediaStore, p: PostRecord, file: string): Promise<FileFacts | null> {
  try {
    return await copyWhole(await media.read(p.storedPath), file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Writes one post's media file and sidecar into `folder`; its names, or null when its original is missing. */
async function exportPost(media: MediaStore, folder: string, p: PostRecord): Promise<{ names: string[]; bytes: number } | null> {
  const name = mediaName(p.id, p.storedPath);
  const file = path.join(folder, name);
  const sidecarFile = path.join(folder, sidecarName(name));
  const facts = (await alreadyWritten(file, sidecarFile, p, name)) ?? (await copyOriginal(media, p, file));
  if (!facts) return null;
  const { mime, storedPath: _, id, sha256, md5, ...rest } = p;
  const sidecar: PostSidecar = { id, sha256, md5, file: { name, mime, ...facts }, ...rest };
  await writeWhole(sidecarFile, `${JSON.stringify(sidecar, null, 2)}\n`);
  return { names: [name, sidecarName(name)], bytes: facts.bytes };
}

/** Runs `work` over `items`, a few at a time. A failure stops the rest, and is thrown once none is running (the store is closed after). */
async function eachConcurrently<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    try {
      while (next < items.length) await work(items[next++]);
    } catch (err) {
      next = items.length;
      throw err;
    }
  };
  const failed = (await Promise.allSettled(Array.from({ length: CONCURRENCY }, worker))).find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/** The ids of the matching posts, a keyset page at a time, in id order. */
async function* idPages(deps: Deps, matching: repo.MatchingPosts): AsyncGenerator<number[]> {
  for (let after = 0; ; ) {
    const ids = await repo.matchingIdsAfter(deps.db, matching, after, BATCH);
    if (ids.length === 0) return;
    yield ids;
    after = ids[ids.length - 1];
  }
}

/** What the posts written so far add up to, and what the board files need of them. */
function tally(query: string | null) {
  return {
    posts: 0,
    bytes: 0,
    missing: [] as number[],
    // A --q export's tags and relations are those of its posts: their names are kept as they are written.
    usedTags: query === null ? null : new Set<string>(),
    memberships: new Map() as Memberships,
    seen() {
      return this.posts + this.missing.length;
    },
    written(p: PostRecord, bytes: number) {
      this.posts++;
      this.bytes += bytes;
      for (const t of p.tags) this.usedTags?.add(t.name);
      for (const r of p.pools) {
        const list = this.memberships.get(r.id);
        if (list) list.push(r.position, p.id);
        else this.memberships.set(r.id, [r.position, p.id]);
      }
    },
  };
}

/**
 * Exports the board's posts (or those `q` matches) into `dir` (docs/export-format.md). Posts are
 * read in id order, a page at a time, against the live board: a post made meanwhile with a
 * higher id may be in it, one deleted meanwhile is not. Run again into the same folder, it
 * writes the export anew, reusing the media files already there, and leaves no file of the
 * earlier run that this one would not have written.
 */
export async function exportBoard(deps: Deps, dir: string, opts: ExportOptions): Promise<ExportSummary> {
  const target = path.resolve(dir);
  const startedAt = new Date(deps.clock.now());
  // Compiled before the folder is touched: a query with a mistake writes nothing.
  const matching = await matchingPosts(deps, opts.q);
  await claimFolder(target, opts.q, startedAt);
  const total = await repo.countMatching(deps.db, matching);
  const folders = fanOut(target);
  const t = tally(opts.q);
  // Past the count when posts made since, with higher ids than the pages had reached, are in it.
  const progress = () => opts.onProgress?.(t.seen(), Math.max(total, t.seen()));
  opts.onProgress?.(0, total);
  for await (const ids of idPages(deps, matching)) {
    const records = await readPosts(deps.db, ids);
    const folderOf = new Map<number, string>();
    for (const p of records) folderOf.set(p.id, await folders.folder(p.id));
    await eachConcurrently(records, async (p) => {
      const written = await exportPost(deps.media, folderOf.get(p.id)!, p);
      if (written) {
        folders.keep(p.id, written.names);
        t.written(p, written.bytes);
      } else t.missing.push(p.id);
      progress();
    });
    await folders.passed(ids[ids.length - 1] + 1);
  }
  await folders.finish();
  const board = await writeBoardFiles(deps.db, target, { usedTags: t.usedTags, memberships: t.memberships });
  const manifest: Manifest = {
    format: FORMAT,
    version: VERSION,
    board: boardName(deps.config.publicUrl),
    exportedAt: startedAt.toISOString(),
    query: opts.q,
    posts: t.posts,
  };
  await finishFolder(target, manifest);
  return { manifest, bytes: t.bytes, missing: t.missing.sort((a, b) => a - b), ...board };
}
