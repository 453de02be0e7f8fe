import path from 'node:path';
import type { Db } from '../../db/engine.ts';
import type { TagCategory } from '../../core/tag-categories.ts';
import { ALIASES_FILE, IMPLICATIONS_FILE, type PoolJson, POOLS_FILE, type RelationJson, type TagLine, TAGS_FILE } from './export-format.ts';
import { jsonArrayFile, jsonLinesFile } from './export-files.ts';
import * as repo from './exports.repo.ts';

/**
 * The board-wide files: tags.jsonl, aliases.json, implications.json and pools.json. A whole
 * board's are read in keyset pages; a --q export's are those of the tags and pools its posts
 * have, collected while the posts were written (names and memberships only, never the posts).
 */

const PAGE = 1000;
const CHUNK = 500;

/** Pools the exported posts are in: pool id -> [position, post id, position, post id, ...] (flat: a pooled post costs two numbers). */
export type Memberships = Map<number, number[]>;

export interface BoardScope {
  /** null: the whole board's tags, relations and pools. */
  usedTags: Set<string> | null;
  memberships: Memberships;
}

export interface BoardCounts {
  tags: number;
  aliases: number;
  implications: number;
  pools: number;
}

function* chunks<T>(items: T[]): Generator<T[]> {
  for (let i = 0; i < items.length; i += CHUNK) yield items.slice(i, i + CHUNK);
}

type TagRow = { id: number; name: string; category: string; description: string };

/** Tags worth a line: used, or carrying a category other than general or a description (the rest are implied by the posts). */
async function* tagPages(db: Db, used: Set<string> | null): AsyncGenerator<TagRow[]> {
  if (used) {
    for (const names of chunks([...used].sort())) {
      yield await repo.tagsNamed(db, names);
    }
    return;
  }
  for (let after = 0; ; ) {
    const rows = await repo.tagsWorthALineAfter(db, after, PAGE);
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1].id;
  }
}

/** Aliases to the tags in scope: all of them for a whole board. */
async function* aliasPages(db: Db, used: Set<string> | null): AsyncGenerator<RelationJson[]> {
  if (used) {
    for (const names of chunks([...used].sort())) yield await repo.aliasesToTags(db, names);
    return;
  }
  for (let after: string | null = null; ; ) {
    const rows = await repo.aliasesAfter(db, after, PAGE);
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1].from;
  }
}

/** Implications between tags in scope (both ends): all of them for a whole board. */
async function* implicationPages(db: Db, used: Set<string> | null): AsyncGenerator<RelationJson[]> {
  const plain = (rows: { from: string; to: string }[]) => rows.map((r) => ({ from: r.from, to: r.to }));
  if (used) {
    for (const names of chunks([...used].sort())) yield plain((await repo.implicationsFromTags(db, names)).filter((r) => used.has(r.to)));
    return;
  }
  for (let after = { from: 0, to: 0 }; ; ) {
    const rows = await repo.implicationsAfter(db, after, PAGE);
    if (rows.length === 0) return;
    yield plain(rows);
    after = { from: rows[rows.length - 1].from_id, to: rows[rows.length - 1].to_id };
  }
}

type PoolRow = { id: number; name: string; description: string; is_public: number };

/** Every pool of a whole board (empty ones too); for a --q export, the pools its posts are in. */
async function* poolPages(db: Db, scope: BoardScope): AsyncGenerator<PoolRow[]> {
  if (scope.usedTags) {
    for (const ids of chunks([...scope.memberships.keys()].sort((a, b) => a - b))) yield await repo.poolsByIds(db, ids);
    return;
  }
  for (let after = 0; ; ) {
    const rows = await repo.poolsAfter(db, after, PAGE);
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1].id;
  }
}

/** A pool's exported posts in its order. */
function postIdsOf(memberships: Memberships, poolId: number): number[] {
  const flat = memberships.get(poolId) ?? [];
  const pairs: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i], flat[i + 1]]);
  return pairs.sort((a, b) => a[0] - b[0]).map((p) => p[1]);
}

async function writeAll<T>(file: ReturnType<typeof jsonArrayFile<T>>, pages: AsyncIterable<T[]>): Promise<number> {
  for await (const page of pages) for (const item of page) await file.add(item);
  await file.close();
  return file.count();
}

export async function writeBoardFiles(db: Db, dir: string, scope: BoardScope): Promise<BoardCounts> {
  const used = scope.usedTags;
  const tagLines = (async function* () {
    for await (const rows of tagPages(db, used))
      yield rows.map((r): TagLine => ({ name: r.name, category: r.category as TagCategory, description: r.description }));
  })();
  const poolItems = (async function* () {
    for await (const rows of poolPages(db, scope))
      yield rows.map(
        (r): PoolJson => ({ id: r.id, name: r.name, description: r.description, is_public: r.is_public === 1, post_ids: postIdsOf(scope.memberships, r.id) }),
      );
  })();
  return {
    tags: await writeAll(jsonLinesFile<TagLine>(path.join(dir, TAGS_FILE)), tagLines),
    aliases: await writeAll(jsonArrayFile<RelationJson>(path.join(dir, ALIASES_FILE)), aliasPages(db, used)),
    implications: await writeAll(jsonArrayFile<RelationJson>(path.join(dir, IMPLICATIONS_FILE)), implicationPages(db, used)),
    pools: await writeAll(jsonArrayFile<PoolJson>(path.join(dir, POOLS_FILE)), poolItems),
  };
}
