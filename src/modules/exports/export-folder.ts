import fs from 'node:fs/promises';
import path from 'node:path';
import { ExportError, FORMAT, MANIFEST, PER_FOLDER, POSTS_DIR, postFolder, UNFINISHED, VERSION } from './export-format.ts';
import { keepOnly, readJson, writeWhole } from './export-files.ts';

const isOurs = async (file: string) => ((await readJson(file)) as { format?: unknown } | null)?.format === FORMAT;

/**
 * Makes `dir` the export's: created when missing; an empty folder or an earlier export (finished,
 * or cut off) is taken, anything else refused before a byte is written, so an export never
 * overwrites files it did not make. The manifest goes first: until it is written again at the
 * end, the folder reads as unfinished.
 */
export async function claimFolder(dir: string, query: string | null, now: Date): Promise<void> {
  let names: string[] = [];
  try {
    if (!(await fs.stat(dir)).isDirectory()) throw new ExportError(`${dir} is a file, not a folder: name a new or empty folder, or an earlier export`);
    names = await fs.readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    await fs.mkdir(dir, { recursive: true });
  }
  const ours = names.length === 0 || (await isOurs(path.join(dir, UNFINISHED))) || (await isOurs(path.join(dir, MANIFEST)));
  if (!ours) {
    throw new ExportError(
      `${dir} is not empty and holds no export (no ${MANIFEST} or ${UNFINISHED} of format ${FORMAT}): nothing was written. ` +
        'Name a new or empty folder, or an earlier export to write again.',
    );
  }
  await writeWhole(path.join(dir, UNFINISHED), `${JSON.stringify({ format: FORMAT, version: VERSION, startedAt: now.toISOString(), query })}\n`);
  await fs.rm(path.join(dir, MANIFEST), { force: true });
  // A board file a cut-off run was writing (posts/ is cleared folder by folder as it is written again).
  for (const name of names.filter((n) => /\.tmp-\d+$/.test(n))) await fs.rm(path.join(dir, name), { force: true });
}

/** The export is whole: the manifest in place, then the mark of an unfinished one taken away. */
export async function finishFolder(dir: string, manifest: object): Promise<void> {
  await writeWhole(path.join(dir, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  await fs.rm(path.join(dir, UNFINISHED), { force: true });
}

const folderOf = (id: number) => Math.floor(id / PER_FOLDER);

/**
 * The fan-out folders of posts/, filled in id order. Once the posts have gone past a folder, what
 * is in it but this run's files (an earlier run's posts since deleted or no longer matching --q,
 * a temporary file of a run cut off) is removed: a folder written again holds this export alone.
 */
export function fanOut(dir: string) {
  /** Folders being filled, with the names written into each so far. */
  const open = new Map<number, Set<string>>();
  const filled = new Set<number>();
  const close = async (k: number) => {
    await keepOnly(path.join(dir, postFolder(k * PER_FOLDER)), open.get(k)!);
    open.delete(k);
  };
  return {
    /** Makes the folder of `id`; its absolute path. */
    async folder(id: number): Promise<string> {
      const k = folderOf(id);
      const abs = path.join(dir, postFolder(id));
      if (!open.has(k)) {
        await fs.mkdir(abs, { recursive: true });
        open.set(k, new Set());
        filled.add(k);
      }
      return abs;
    },
    keep(id: number, names: string[]) {
      for (const n of names) open.get(folderOf(id))!.add(n);
    },
    /** Every post below `id` is written: the folders before its own are done. */
    async passed(id: number) {
      for (const k of [...open.keys()]) if (k < folderOf(id)) await close(k);
    },
    /** Every post is written: the open folders are done, and folders no post of this run went into are removed. */
    async finish() {
      for (const k of [...open.keys()]) await close(k);
      const root = path.join(dir, POSTS_DIR);
      await fs.mkdir(root, { recursive: true });
      for (const name of await fs.readdir(root)) {
        if (/^\d+$/.test(name) && !filled.has(Number(name))) await fs.rm(path.join(root, name), { recursive: true, force: true });
      }
    },
  };
}
