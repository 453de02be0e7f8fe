import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * Writing an export's files. Every file is written under a temporary name and renamed into place,
 * so a file with its final name is whole: an export cut off at any moment and run again finds
 * only whole files, and a reader never sees half of one.
 */

export interface FileFacts {
  bytes: number;
  sha256: string;
  md5: string;
}

const tmpName = (file: string) => `${file}.tmp-${process.pid}`;

export async function writeWhole(file: string, text: string): Promise<void> {
  const tmp = tmpName(file);
  await fs.writeFile(tmp, text);
  await fs.rename(tmp, file);
}

/** Streams `from` into `file`, hashing on the way: the bytes are never all in memory. */
export async function copyWhole(from: Readable, file: string): Promise<FileFacts> {
  const tmp = tmpName(file);
  const sha256 = createHash('sha256');
  const md5 = createHash('md5');
  let bytes = 0;
  try {
    await pipeline(
      from,
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          sha256.update(chunk);
          md5.update(chunk);
          bytes += chunk.length;
          yield chunk;
        }
      },
      createWriteStream(tmp),
    );
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  return { bytes, sha256: sha256.digest('hex'), md5: md5.digest('hex') };
}

/** The facts of a file on disk, or null when there is none. */
export async function factsOf(file: string): Promise<FileFacts | null> {
  const sha256 = createHash('sha256');
  const md5 = createHash('md5');
  let bytes = 0;
  try {
    for await (const chunk of createReadStream(file)) {
      sha256.update(chunk as Buffer);
      md5.update(chunk as Buffer);
      bytes += (chunk as Buffer).length;
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return { bytes, sha256: sha256.digest('hex'), md5: md5.digest('hex') };
}

export async function readJson(file: string): Promise<unknown> {
  try {
    return JSON.parse(await fs.readFile(file, 'utf8'));
  } catch {
    return null;
  }
}

/** A file written piece by piece (a JSON array one element a line, or JSON lines): memory holds one piece at a time. */
export interface StreamedFile<T> {
  add(value: T): Promise<void>;
  count(): number;
  /** Finishes the file and puts it in place. */
  close(): Promise<void>;
}

function streamedFile<T>(file: string, head: string, separator: string, tail: string, empty: string): StreamedFile<T> {
  const tmp = tmpName(file);
  const out = createWriteStream(tmp);
  let n = 0;
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  return {
    add: (value) => write(`${n++ === 0 ? head : separator}${JSON.stringify(value)}`),
    count: () => n,
    close: async () => {
      out.end(n === 0 ? empty : tail);
      await once(out, 'close');
      await fs.rename(tmp, file);
    },
  };
}

/** `[\n{...},\n{...}\n]\n`: one element a line, so a large file can still be read with a line tool. */
export const jsonArrayFile = <T>(file: string) => streamedFile<T>(file, '[\n', ',\n', '\n]\n', '[]\n');

/** One JSON value a line; an empty file when there are none. */
export const jsonLinesFile = <T>(file: string) => streamedFile<T>(file, '', '\n', '\n', '');

/** Removes everything in `folder` but the names kept. */
export async function keepOnly(folder: string, keep: Set<string>): Promise<void> {
  const names = await fs.readdir(folder).catch(() => [] as string[]);
  await Promise.all(names.filter((n) => !keep.has(n)).map((n) => fs.rm(path.join(folder, n), { recursive: true, force: true })));
}
