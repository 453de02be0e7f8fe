import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { Deps } from '../../core/deps.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { unavailableOf } from '../../storage/unavailable.ts';
import { countPostsWithoutMd5, existingPostIds, postsWithoutMd5After, writeMd5 } from './uploads.repo.ts';

/**
 * Posts made before md5 was stored (migration 002) get it from their stored original, read once
 * and hashed. Uploads hash the bytes as sent; an original whose metadata was stripped or whose
 * video was remuxed at upload is no longer those bytes, and its md5 is that of the file served
 * (the bytes as sent are gone). A post whose original cannot be read keeps no md5 and is tried
 * again at the next fill; `imageboard media check` lists such posts.
 *
 * Safe with several fills at once (instances starting together, the command beside a server):
 * each writes only posts still without md5.
 */

export interface Md5FillReport {
  /** Posts without md5 when the fill began. */
  total: number;
  /** Posts given their md5 by this fill. */
  filled: number;
  /** Posts whose original could not be read: their md5 stays empty. */
  missing: number;
  /** Whether it stopped before the end (the app closing). */
  stopped: boolean;
}

export interface Md5FillOptions {
  /** Posts read a batch, in id order. */
  batch?: number;
  signal?: AbortSignal;
  /** Before the first batch and after each: posts done (filled, missing or deleted meanwhile) of the total. */
  onProgress?(done: number, total: number): void;
  /** Posts of a batch whose original could not be read, once per batch, with the first error's code. */
  onMissing?(ids: number[], code: string): void;
}

const BATCH = 200;

export async function fillMd5(deps: Pick<Deps, 'db' | 'media'>, opts: Md5FillOptions = {}): Promise<Md5FillReport> {
  const { db, media } = deps;
  const { signal } = opts;
  const report: Md5FillReport = { total: await countPostsWithoutMd5(db), filled: 0, missing: 0, stopped: false };
  let done = 0;
  if (report.total > 0) opts.onProgress?.(0, report.total);
  for (let after = 0; report.total > 0; ) {
    const rows = await postsWithoutMd5After(db, after, opts.batch ?? BATCH);
    if (rows.length === 0) break;
    after = rows[rows.length - 1].id;
    const { sums, unread } = await hashOriginals(media, rows, signal);
    report.filled += await writeMd5(db, sums);
    // Only the posts that still exist: an original gone with its post (deleted meanwhile) is no problem.
    const missing = await existingPostIds(
      db,
      unread.map((u) => u.id),
    );
    report.missing += missing.length;
    if (missing.length > 0) opts.onMissing?.(missing, unread.find((u) => u.id === missing[0])!.code);
    done += sums.length + unread.length;
    if (signal?.aborted) {
      report.stopped = true;
      break;
    }
    opts.onProgress?.(Math.min(done, report.total), report.total);
  }
  return report;
}

/** The md5 of each post's original, read one file at a time: the fill runs beside requests and should take little of the disk or a core. */
async function hashOriginals(media: MediaStore, rows: { id: number; file_path: string }[], signal?: AbortSignal) {
  const sums: { id: number; md5: string }[] = [];
  const unread: { id: number; code: string }[] = [];
  for (const row of rows) {
    if (signal?.aborted) break;
    try {
      sums.push({ id: row.id, md5: await md5Of(await media.read(row.file_path)) });
    } catch (err) {
      // A store that is away says nothing about this file: the fill waits for it (backgroundMd5Fill).
      if (unavailableOf(err)) throw err;
      unread.push({ id: row.id, code: (err as NodeJS.ErrnoException).code ?? (err as Error).message });
    }
  }
  return { sums, unread };
}

async function md5Of(file: Readable): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of file) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

const PROGRESS_EVERY_MS = 10_000;
const count = (n: number) => n.toLocaleString('en');
const posts = (n: number) => `${count(n)} post${n === 1 ? '' : 's'}`;

/** How long the background fill waits before trying again while the database or the media store is away. */
const OUTAGE_WAIT_MS = 2000;

/**
 * The fill as the app runs it after start-up: in the background, logging its progress (every ten
 * seconds and at the end), a warning per batch with posts whose original is missing, and any
 * failure. While the database or the media store is away it waits and goes on from where it was
 * (the posts still without md5). `done` never rejects; `stop` ends it after the file being read
 * and waits for that.
 */
export function backgroundMd5Fill(deps: Pick<Deps, 'db' | 'media'>, log: FastifyBaseLogger) {
  const abort = new AbortController();
  let shown = performance.now();
  const fill = async (): Promise<Md5FillReport> => {
    for (let paused = false; ; ) {
      try {
        return await fillOnce();
      } catch (err) {
        const away = unavailableOf(err);
        if (!away || abort.signal.aborted) throw err;
        if (!paused) log.warn(`md5: paused, the ${away.dependency} is unavailable; going on when it is back`);
        paused = true;
        await sleep(OUTAGE_WAIT_MS, undefined, { signal: abort.signal });
      }
    }
  };
  const fillOnce = () =>
    fillMd5(deps, {
      signal: abort.signal,
      onProgress: (n, total) => {
        if (n === 0) return log.info(`md5: ${posts(total)} made before md5 was stored; filling them in the background`);
        if (n < total && performance.now() - shown < PROGRESS_EVERY_MS) return;
        shown = performance.now();
        log.info(`md5: ${count(n)} of ${posts(total)}`);
      },
      onMissing: (ids, code) => {
        const some = ids.slice(0, 10).join(', ') + (ids.length > 10 ? ', ...' : '');
        log.warn(
          { posts: ids.length, code },
          `md5: ${posts(ids.length)} of this batch without a readable original (${some}) left without md5; imageboard media check lists such posts`,
        );
      },
    });
  const done = fill().then(
    (report) => {
      if (report.total > 0) log.info(report, `md5: ${report.stopped ? 'stopped' : 'done'}, ${posts(report.filled)} filled`);
      return report;
    },
    (err) => {
      if (!abort.signal.aborted) log.error({ err }, 'md5: filling the md5 of older posts failed; it starts again with the next start-up');
      return null;
    },
  );
  return {
    done,
    stop: async () => {
      abort.abort();
      await done;
    },
  };
}
