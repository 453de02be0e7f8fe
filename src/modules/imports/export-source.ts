import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { RATINGS, type Rating } from '../../core/schemas.ts';
import {
  ALIASES_FILE,
  FORMAT,
  IMPLICATIONS_FILE,
  MANIFEST,
  type Manifest,
  type PoolJson,
  POOLS_FILE,
  POSTS_DIR,
  type PostSidecar,
  type RelationJson,
  type TagLine,
  TAGS_FILE,
  VERSION,
} from '../exports/export-format.ts';
import { TAG_CATEGORIES, type TagCategory } from '../../core/tag-categories.ts';
import { type BoardData, type ImportItem, type ImportProblem, type ImportSource, type SourceEntry, SourceError } from './import-item.ts';

/**
 * Reads a folder `imageboard export` wrote (docs/export-format.md) back into ImportItems and
 * BoardData. Posts are read folder by folder, in id order, one sidecar at a time. The origin is
 * the exporting board's name; a post or comment that board had itself imported keeps its first
 * origin's author, score and favorites (the `imported` records), as those are the original ones.
 */

async function readManifest(dir: string): Promise<Manifest | null> {
  try {
    const m = JSON.parse(await fs.readFile(path.join(dir, MANIFEST), 'utf8')) as Manifest;
    return m?.format === FORMAT && m.version === VERSION && typeof m.board === 'string' ? m : null;
  } catch {
    return null;
  }
}

/** Whether `dir` is a finished export of this format (an unfinished one has no manifest yet). */
export async function isExportDir(dir: string): Promise<boolean> {
  return (await readManifest(dir)) !== null;
}

const category = (c: unknown): TagCategory | null => ((TAG_CATEGORIES as readonly unknown[]).includes(c) ? (c as TagCategory) : null);
const rating = (r: unknown): Rating | null => ((RATINGS as readonly unknown[]).includes(r) ? (r as Rating) : null);
const text = (s: unknown): string | null => (typeof s === 'string' && s !== '' ? s : null);
const time = (iso: unknown): number | null => {
  const ms = typeof iso === 'string' ? Date.parse(iso) : Number.NaN;
  return Number.isNaN(ms) ? null : ms;
};
const idText = (n: unknown): string | null => (typeof n === 'number' ? String(n) : null);
const firstOf = <T>(list: T[] | undefined, pick: (x: T) => unknown) => (list ?? []).map(pick).find((v) => v !== null && v !== undefined) ?? null;

/** A sidecar as an ImportItem; a string saying what is wrong when it is not one. */
function sidecarItem(board: string, folder: string, s: PostSidecar, poolNames: Map<number, string>): ImportItem | string {
  if (!Number.isInteger(s?.id)) return 'the sidecar has no integer id';
  const name = s.file?.name;
  if (typeof name !== 'string' || name !== path.basename(name) || !name.startsWith(`${s.id}.`)) return 'the sidecar names no media file of its post';
  if (!Array.isArray(s.tags) || !Array.isArray(s.pools) || !Array.isArray(s.comments)) return 'the sidecar lacks tags, pools or comments';
  if (!s.tags.every((t) => typeof t?.name === 'string') || !s.comments.every((c) => typeof c?.body === 'string'))
    return 'a tag without a name or a comment without a body';
  const file = path.join(folder, name);
  return {
    origin: board,
    originId: String(s.id),
    file,
    label: file,
    // The exported bytes' own: the post's md5 is of the upload, before its metadata was stripped.
    md5: text(s.file.md5),
    tags: s.tags.map((t) => ({ name: t.name, category: category(t.category) })),
    rating: rating(s.rating),
    source: text(s.source),
    title: text(s.title),
    description: text(s.description),
    createdAt: time(s.created_at),
    parentOriginId: idText(s.parent_id),
    pools: s.pools.map((p) => ({
      key: String(p.id),
      name: poolNames.get(p.id) ?? null,
      position: typeof p.position === 'number' ? p.position : null,
      description: null,
    })),
    score: firstOf(s.imported, (r) => r.score) as number | null,
    favCount: firstOf(s.imported, (r) => r.fav_count) as number | null,
    uploader: (firstOf(s.imported, (r) => r.author) as string | null) ?? text(s.uploader),
    comments: s.comments.map((c) => ({
      key: String(c.id),
      author: (firstOf(c.imported, (r) => r.author) as string | null) ?? text(c.author),
      body: c.body,
      createdAt: time(c.created_at),
    })),
  };
}

const folderNumber = (name: string) => (/^\d+$/.test(name) ? Number(name) : null);
/** The post id a file name starts with; names of no post last. */
const postIdOf = (name: string) => Number(name.match(/^(\d+)\./)?.[1] ?? Number.POSITIVE_INFINITY);

/** One fan-out folder's entries: each sidecar's post (or why not), then media files no sidecar claimed. */
async function* folderEntries(board: string, folder: string, poolNames: Map<number, string>): AsyncGenerator<SourceEntry> {
  const names = new Set(await fs.readdir(folder));
  const sidecars = [...names].filter((n) => n.endsWith('.json')).sort((a, b) => postIdOf(a) - postIdOf(b) || (a < b ? -1 : 1));
  const claimed = new Set<string>();
  for (const name of sidecars) {
    const label = path.join(folder, name);
    claimed.add(name);
    let item: ImportItem | string;
    try {
      item = sidecarItem(board, folder, JSON.parse(await fs.readFile(label, 'utf8')) as PostSidecar, poolNames);
    } catch (err) {
      item = `the sidecar cannot be read as JSON: ${(err as Error).message}`;
    }
    if (typeof item !== 'string' && !names.has(path.basename(item.file))) item = `its media file ${path.basename(item.file)} is missing`;
    if (typeof item === 'string') yield problem(label, item);
    else {
      claimed.add(path.basename(item.file));
      yield { kind: 'post', item };
    }
  }
  for (const name of [...names].filter((n) => !claimed.has(n)).sort()) yield problem(path.join(folder, name), 'a file without a sidecar');
}

const problem = (label: string, reason: string): SourceEntry => ({ kind: 'problem', problem: { label, reason } satisfies ImportProblem });

async function readArray<T>(file: string): Promise<T[]> {
  try {
    const value = JSON.parse(await fs.readFile(file, 'utf8')) as unknown;
    return Array.isArray(value) ? (value as T[]) : [];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
}

async function readTags(file: string): Promise<BoardData['tags']> {
  const out: BoardData['tags'] = [];
  try {
    await fs.access(file);
  } catch {
    return out;
  }
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) {
    if (line.trim() === '') continue;
    const t = JSON.parse(line) as TagLine;
    out.push({ name: t.name, category: category(t.category), description: text(t.description) });
  }
  return out;
}

/** The ImportSource of an export folder (isExportDir says whether it is one; reading one that is not throws). */
export function exportSource(folder: string): ImportSource {
  const dir = path.resolve(folder);
  let manifest: Promise<Manifest> | null = null;
  const load = () =>
    (manifest ??= readManifest(dir).then((m) => {
      if (!m) throw new SourceError(`${dir} is not a finished export: it has no ${MANIFEST} of format ${FORMAT} version ${VERSION}`);
      return m;
    }));
  const board = async () => (await load()).board;
  let pools: Promise<PoolJson[]> | null = null;
  const loadPools = () => (pools ??= readArray<PoolJson>(path.join(dir, POOLS_FILE)));
  return {
    total: async () => (await load()).posts,
    async *entries() {
      const origin = await board();
      const poolNames = new Map((await loadPools()).map((p) => [p.id, p.name]));
      const root = path.join(dir, POSTS_DIR);
      const folders = (await fs.readdir(root).catch(() => [] as string[]))
        .filter((n) => folderNumber(n) !== null)
        .sort((a, b) => folderNumber(a)! - folderNumber(b)!);
      for (const name of folders) yield* folderEntries(origin, path.join(root, name), poolNames);
    },
    board: async () => {
      const origin = await board();
      return {
        tags: await readTags(path.join(dir, TAGS_FILE)),
        aliases: (await readArray<RelationJson>(path.join(dir, ALIASES_FILE))).map((r) => ({ from: r.from, to: r.to })),
        implications: (await readArray<RelationJson>(path.join(dir, IMPLICATIONS_FILE))).map((r) => ({ from: r.from, to: r.to })),
        pools: (await loadPools()).map((p) => ({
          origin,
          key: String(p.id),
          name: p.name,
          description: text(p.description),
          postOriginIds: p.post_ids.map(String),
        })),
      };
    },
  };
}
