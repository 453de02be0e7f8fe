import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Walking an import folder and pairing its media files with their sidecars. The tree is read one
 * folder at a time, names sorted by code unit so two runs over the same tree read it in the same
 * order whatever the locale.
 */

export const MEDIA_EXTENSIONS = ['jpg', 'jpeg', 'png', 'gif', 'webp', 'avif', 'mp4', 'webm'];
const MEDIA = new Set(MEDIA_EXTENSIONS);

const extOf = (name: string) => path.extname(name).slice(1).toLowerCase();
export const isMedia = (name: string) => MEDIA.has(extOf(name));
const isSidecarName = (name: string) => extOf(name) === 'json' || extOf(name) === 'txt';
const stemOf = (name: string) => name.slice(0, name.length - path.extname(name).length);
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** One folder of the tree: its files' names, sorted; or why it could not be listed. */
export type Folder = { dir: string; files: string[] } | { dir: string; error: string };

/**
 * Every folder under `root`, itself first, depth first in name order. Hidden files and folders
 * (dot names: .git, macOS's ._x.jpg) are left out; a link to a folder is not followed, so a link
 * back up the tree cannot loop; a link to a file is read as the file.
 */
export async function* walk(root: string): AsyncGenerator<Folder> {
  let entries: Dirent[];
  try {
    entries = await fs.readdir(root, { withFileTypes: true });
  } catch (err) {
    yield { dir: root, error: (err as Error).message };
    return;
  }
  entries = entries.filter((e) => !e.name.startsWith('.')).sort((a, b) => byCodeUnit(a.name, b.name));
  const files: string[] = [];
  for (const e of entries) {
    if (e.isFile() || (e.isSymbolicLink() && (await fs.stat(path.join(root, e.name)).catch(() => null))?.isFile())) files.push(e.name);
  }
  yield { dir: root, files };
  for (const e of entries) if (e.isDirectory()) yield* walk(path.join(root, e.name));
}

/** A folder's media files with their sidecars, and the sidecar-like files no media file claims. */
export interface Pairing {
  media: { name: string; sidecar: string | null }[];
  /** `reason` null: a `.json` whose name says nothing of a media file; its content tells whether it is a sidecar at all. */
  orphans: { name: string; reason: string | null }[];
}

/**
 * Pairs each media file with the first of `<file>.json`, `<file-without-ext>.json`, `<file>.txt`,
 * `<file-without-ext>.txt` there is (names matched in any case, the exact one first). A sidecar
 * named for the whole file name belongs to that file alone; one named for the name without the
 * extension belongs to no file when several share that name (a.jpg and a.png beside a.json).
 */
export function pair(files: string[]): Pairing {
  const exact = new Set(files);
  const lower = new Map<string, string>();
  for (const f of files) if (!lower.has(f.toLowerCase())) lower.set(f.toLowerCase(), f);
  const find = (name: string) => (exact.has(name) ? name : (lower.get(name.toLowerCase()) ?? null));
  const media = files.filter(isMedia);
  const stems = new Map<string, string[]>();
  for (const m of media) {
    const stem = stemOf(m).toLowerCase();
    if (stems.has(stem)) stems.get(stem)!.push(m);
    else stems.set(stem, [m]);
  }
  const owned = new Set(media.flatMap((m) => [find(`${m}.json`), find(`${m}.txt`)]).filter((n) => n !== null));
  const claimed = new Set<string>(owned);
  const ambiguous = new Map<string, string[]>();
  const paired = media.map((m) => {
    const sharing = stems.get(stemOf(m).toLowerCase())!;
    const byStem = (ext: string) => {
      const found = find(`${stemOf(m)}.${ext}`);
      if (!found || owned.has(found)) return null;
      if (sharing.length > 1) ambiguous.set(found, sharing);
      else claimed.add(found);
      return sharing.length > 1 ? null : found;
    };
    const candidates = [find(`${m}.json`), byStem('json'), find(`${m}.txt`), byStem('txt')];
    return { name: m, sidecar: candidates.find((c) => c !== null) ?? null };
  });
  const orphans: Pairing['orphans'] = [];
  for (const f of files) {
    if (!isSidecarName(f) || claimed.has(f)) continue;
    const shared = ambiguous.get(f);
    if (shared) orphans.push({ name: f, reason: `several media files share its name (${shared.join(', ')}): name each sidecar after its whole file name` });
    else if (isMedia(stemOf(f))) orphans.push({ name: f, reason: `its media file ${stemOf(f)} is missing` });
    // A .txt named for no media file is a note or a readme, not a sidecar; a .json's content tells.
    else if (extOf(f) === 'json') orphans.push({ name: f, reason: null });
  }
  return { media: paired, orphans };
}
