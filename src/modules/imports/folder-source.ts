import fs from 'node:fs/promises';
import path from 'node:path';
import { isMedia, pair, walk } from './folder-source-pairs.ts';
import type { BoardData, ImportItem, ImportSource, SourceEntry } from './import-item.ts';
import { blankItem, detect, readSidecar } from './sidecars/index.ts';

/**
 * The ImportSource of a folder of media files with sidecars (gallery-dl's `--write-metadata` and
 * `--write-tags`, Hydrus's exports): every media file under it is a post, with what its sidecar
 * says, or with nothing but its bytes when it has none. A sidecar that cannot be read is a problem
 * and its media file is left for a run after the sidecar is mended, so a post never comes in
 * half-described. The tree is walked one folder at a time and each sidecar read when its media
 * file's turn comes; only the pools' members are kept, for board().
 */

/** A sidecar larger than this is no post's metadata (a post JSON is a few KB; notes and comments add tens). */
const MAX_SIDECAR = 8 * 1024 * 1024;

const problem = (label: string, reason: string): SourceEntry => ({ kind: 'problem', problem: { label, reason } });

async function readText(file: string): Promise<string> {
  const stat = await fs.stat(file);
  if (stat.size > MAX_SIDECAR) throw new Error(`it is ${stat.size} bytes, more than a sidecar's ${MAX_SIDECAR}`);
  return fs.readFile(file, 'utf8');
}

/** Pools as the posts name them: each pool's members with their places, when given. */
function poolCollector() {
  type Pool = { origin: string; key: string; name: string | null; description: string | null; members: Map<string, number | null> };
  const pools = new Map<string, Pool>();
  return {
    add(item: ImportItem) {
      if (item.originId === null) return;
      for (const ref of item.pools) {
        const id = `${item.origin}\u0000${ref.key}`;
        const pool = pools.get(id) ?? { origin: item.origin, key: ref.key, name: null, description: null, members: new Map() };
        pools.set(id, pool);
        pool.name ??= ref.name;
        pool.description ??= ref.description;
        pool.members.set(item.originId, pool.members.get(item.originId) ?? ref.position);
      }
    },
    /**
     * Posts with a place in order of it, then the rest by id as a number (the order they were
     * posted in, which is most pools' order when the metadata gives none, as Moebooru's and
     * Danbooru's pool extractors do).
     */
    list(): BoardData['pools'] {
      return [...pools.values()].map((p) => {
        const order = (a: [string, number | null], b: [string, number | null]) =>
          (a[1] ?? Number.POSITIVE_INFINITY) - (b[1] ?? Number.POSITIVE_INFINITY) || Number(a[0]) - Number(b[0]) || (a[0] < b[0] ? -1 : 1);
        return {
          origin: p.origin,
          key: p.key,
          name: p.name ?? `${p.origin} pool ${p.key}`,
          description: p.description,
          postOriginIds: [...p.members].sort(order).map(([id]) => id),
        };
      });
    },
  };
}

/** A media file with its sidecar: the post, or the sidecar's problem. */
async function mediaEntry(root: string, dir: string, name: string, sidecar: string | null): Promise<SourceEntry> {
  const file = path.join(dir, name);
  const media = { file, label: path.relative(root, file) };
  if (sidecar === null) return { kind: 'post', item: blankItem(media, 'file') };
  const label = path.relative(root, path.join(dir, sidecar));
  let item: ImportItem | string;
  try {
    item = readSidecar(sidecar, await readText(path.join(dir, sidecar)), media);
  } catch (err) {
    item = `the sidecar cannot be read: ${(err as Error).message}`;
  }
  return typeof item === 'string' ? problem(label, item) : { kind: 'post', item };
}

/** A `.json` named for no media file: a problem when it is a post's metadata (its media file is gone), else not ours to mention. */
async function strayJson(root: string, file: string): Promise<SourceEntry | null> {
  let data: unknown;
  try {
    data = JSON.parse(await readText(file));
  } catch {
    return null;
  }
  if (!detect(data)) return null;
  const d = data as Record<string, unknown>;
  const named = typeof d.filename === 'string' && typeof d.extension === 'string' ? ` ${d.filename}.${d.extension}` : '';
  return problem(path.relative(root, file), `its media file${named} is missing`);
}

/** The ImportSource of the folder `dir` and every folder under it. */
export function folderSource(dir: string): ImportSource {
  const root = path.resolve(dir);
  const pools = poolCollector();
  return {
    async total() {
      let count = 0;
      for await (const folder of walk(root)) if ('files' in folder) count += folder.files.filter(isMedia).length;
      return count;
    },
    async *entries() {
      for await (const folder of walk(root)) {
        if ('error' in folder) {
          yield problem(path.relative(root, folder.dir) || '.', `the folder cannot be read: ${folder.error}`);
          continue;
        }
        const { media, orphans } = pair(folder.files);
        for (const m of media) {
          const entry = await mediaEntry(root, folder.dir, m.name, m.sidecar);
          if (entry.kind === 'post') pools.add(entry.item);
          yield entry;
        }
        for (const o of orphans) {
          const entry =
            o.reason === null ? await strayJson(root, path.join(folder.dir, o.name)) : problem(path.relative(root, path.join(folder.dir, o.name)), o.reason);
          if (entry) yield entry;
        }
      }
    },
    // The folder's sidecars give tags their kinds on each post, and no aliases or implications.
    board: async () => ({ tags: [], aliases: [], implications: [], pools: pools.list() }),
  };
}
