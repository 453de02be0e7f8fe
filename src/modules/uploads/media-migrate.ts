import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { LocalMediaStore } from '../../storage/local.ts';
import type { S3MediaStore } from '../../storage/s3.ts';

export interface MigrateReport {
  /** Files in the local store when the run began. */
  total: number;
  copied: number;
  /** Already in the target with the same bytes (an earlier run): left as they were. */
  alreadyThere: number;
  /** In the target with other bytes (a cut-off or damaged copy): copied again. */
  replaced: string[];
  /** Read back with other bytes than the local file after copying: the run exits 1 naming them. */
  failed: string[];
  /** Stopped by the signal before every file was seen. */
  stopped: boolean;
}

export interface MigrateOptions {
  onProgress?(done: number, total: number): void;
  signal?: AbortSignal;
  /** Files copied at once (each a stream; the store's round trips dominate). */
  concurrency?: number;
}

async function sha256(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Copies every file of the local store into `to` (a bucket), each checked by reading it back and
 * comparing its sha256 with the local file's: the stored name is the hash of the bytes as uploaded,
 * and an original whose metadata was stripped (or a remuxed video, or a thumbnail) has other bytes,
 * so the local file is the reference. A run stopped part way is resumed by running again: a file
 * already in the target with the same bytes is left alone, one with other bytes is copied again.
 */
export async function migrateMedia(from: LocalMediaStore, to: S3MediaStore, opts: MigrateOptions = {}): Promise<MigrateReport> {
  const files: { rel: string; size: number }[] = [];
  for await (const f of from.list()) files.push({ rel: f.rel, size: f.size });
  files.sort((a, b) => (a.rel < b.rel ? -1 : 1));
  const report: MigrateReport = { total: files.length, copied: 0, alreadyThere: 0, replaced: [], failed: [], stopped: false };
  let next = 0;
  let done = 0;
  const one = async (file: { rel: string; size: number }) => {
    const local = await sha256(await from.read(file.rel));
    const there = await to.stat(file.rel);
    if (there) {
      if (there.size === file.size && (await sha256(await to.read(file.rel))) === local) {
        report.alreadyThere++;
        return;
      }
      report.replaced.push(file.rel);
    }
    // The local store's own file, streamed: a bucket's putFile copies it and leaves it in place.
    await to.putFile(file.rel, from.localPath(file.rel));
    if ((await sha256(await to.read(file.rel))) !== local) report.failed.push(file.rel);
    else report.copied++;
  };
  const worker = async () => {
    while (next < files.length) {
      if (opts.signal?.aborted) {
        report.stopped = true;
        return;
      }
      await one(files[next++]);
      opts.onProgress?.(++done, files.length);
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency ?? 4 }, worker));
  if (files.length === 0) opts.onProgress?.(0, 0);
  return report;
}
