import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { IdLists } from '../src/search/sets/id-list.ts';
import { difference, intersection, pageOf, type PostSet, sizeOf, union } from '../src/search/sets/post-set.ts';
import { type Board, leaves, makeBoard, POSTS, type Q, QUERIES, queries, TAGS } from './sets-board.ts';

/**
 * Compressed bitmaps (the `roaring` package, CRoaring) against the tag sets' own representation
 * (src/search/sets/tag-sets.ts: a bitmap for each tag on 1 post in 16 or more, a varint id list
 * (id-list.ts) for each other one, decoded for each query) with the operations of
 * src/search/sets/post-set.ts. A synthetic board of a million posts (sets-board.ts), every tag kept in
 * memory, no database and no HTTP: each query is timed from the kept sets to a page of 24 ids and
 * the exact total. Each representation runs in a process of its own, so neither's garbage or
 * native objects slow the other's collections; both must give the same answers.
 *
 *   ROARING_PATH=/tmp/roaring-env/node_modules/roaring node --import tsx bench/sets-micro.ts
 *
 * roaring is not a dependency of the project (it compiles at every install): without it, only
 * ours is measured.
 */

const SEED = 21;
const ROUNDS = 3;
const PAGE = 24;
/** As in tag-sets.ts (BITMAP_AT, HEADROOM, TAG_SET_BUDGET, MOST_USED_SHARE). */
const BITMAP_AT = 16;
const HEADROOM = 8_192;
const BUDGET = 12 * 1024 * 1024;
const MOST_USED_SHARE = 0.75;
const WORDS = Math.ceil((POSTS + 1 + HEADROOM) / 32);

/** The few methods used of roaring's RoaringBitmap32, so the project type-checks without the package. */
interface Roaring {
  readonly size: number;
  runOptimize(): boolean;
  shrinkToFit(): number;
  getSerializationSizeInBytes(format: 'croaring' | 'portable' | 'unsafe_frozen_croaring'): number;
  toReversed(limit: number): number[];
  dispose(): void;
}
interface RoaringModule {
  PackageVersion: string;
  CRoaringVersion: string;
  RoaringBitmap32: {
    new (values: Uint32Array): Roaring;
    and(a: Roaring, b: Roaring): Roaring;
    andNot(a: Roaring, b: Roaring): Roaring;
    orMany(bitmaps: Roaring[]): Roaring;
    /** Bytes roaring has allocated outside V8's heap. */
    getRoaringUsedMemory(): number;
  };
}

async function loadRoaring(): Promise<RoaringModule | null> {
  try {
    // A computed specifier: tsc does not look for a package the project does not install.
    const file = createRequire(import.meta.url).resolve(process.env.ROARING_PATH ?? 'roaring');
    const m = await import(pathToFileURL(file).href);
    return (m.default ?? m) as RoaringModule;
  } catch {
    return null;
  }
}

/** Builds the sets, and evaluates a query to its page and total. */
interface Side {
  /** Memory figures, and per tag the bytes it takes. */
  memory: Record<string, number>;
  cost: Float64Array;
  run(q: Q): { page: number[]; total: number };
  /** The part of run() that decodes id lists (ours only). */
  decode?(q: Q): void;
}

const isBitmap = (count: number) => count * BITMAP_AT >= POSTS + 1;

function bitmapOf(ids: Int32Array): Int32Array {
  const bits = new Int32Array(WORDS);
  for (const id of ids) bits[id >>> 5] |= 1 << (id & 31);
  return bits;
}

function ours(board: Board): Side {
  const bits = new Map<number, Int32Array>();
  const lists = new IdLists();
  const listOf = new Int32Array(TAGS + 1);
  // tag-sets.ts counts 8 bytes a list besides its ids (its tag's two numbers).
  const cost = new Float64Array(TAGS + 1).fill(WORDS * 4);
  for (let r = 1; r <= TAGS; r++) {
    if (isBitmap(board.tags[r].length)) bits.set(r, bitmapOf(board.tags[r]));
    else {
      const before = lists.encoded;
      listOf[r] = lists.add(board.tags[r].slice().reverse()) + 1;
      cost[r] = lists.encoded - before + 8;
    }
  }
  lists.trim();
  const safe = bitmapOf(board.safe);
  // As PostSets.postsOf: a bitmap as kept, an id list decoded highest first.
  const postsOf = (tag: number): PostSet => {
    const kept = bits.get(tag);
    if (kept) return { bits: kept };
    const k = listOf[tag] - 1;
    const ids = new Int32Array(lists.size(k));
    lists.decode(k, ids);
    return { ids };
  };
  // As the Evaluator of src/search/sets/evaluate.ts: AND is the intersection of its parts less the union of its NOT parts.
  const evaluate = (q: Q): PostSet => {
    if ('tag' in q) return postsOf(q.tag);
    if ('safe' in q) return q.safe === 'union' ? union([{ bits: safe }], WORDS) : { bits: safe };
    if ('any' in q) return union(q.any.map(postsOf), WORDS);
    if ('or' in q) return union(q.or.map(evaluate), WORDS);
    const base = intersection(q.and.map(evaluate), WORDS);
    return q.not.length ? difference(base, q.not.map(evaluate), WORDS) : base;
  };
  return {
    // IdLists keeps four numbers a list besides its bytes.
    memory: { bytes: lists.encoded + lists.count * 16 + bits.size * WORDS * 4, bitmaps: bits.size, lists: lists.count, listBytes: lists.encoded },
    cost,
    run: (q) => {
      const s = evaluate(q);
      return { page: pageOf(s, 'desc', 0, PAGE), total: sizeOf(s) };
    },
    decode: (q) => leaves(q).forEach(postsOf),
  };
}

function roaring(R: RoaringModule, board: Board): Side {
  const B = R.RoaringBitmap32;
  const make = (ids: Int32Array) => {
    const b = new B(new Uint32Array(ids.buffer, ids.byteOffset, ids.length));
    b.runOptimize();
    b.shrinkToFit();
    return b;
  };
  const cost = new Float64Array(TAGS + 1);
  const kept = board.tags.map((ids, r) => {
    const before = B.getRoaringUsedMemory();
    const b = make(ids);
    cost[r] = B.getRoaringUsedMemory() - before;
    return b;
  });
  const safe = make(board.safe);
  const memory: Record<string, number> = { croaring: 0, portable: 0, frozen: 0 };
  for (const b of kept) {
    memory.croaring += b.getSerializationSizeInBytes('croaring');
    memory.portable += b.getSerializationSizeInBytes('portable');
    memory.frozen += b.getSerializationSizeInBytes('unsafe_frozen_croaring');
  }
  // Every bitmap made for a query is freed once its page is read, as a server would.
  let made: Roaring[] = [];
  const keep = (b: Roaring) => {
    made.push(b);
    return b;
  };
  const evaluate = (q: Q): Roaring => {
    if ('tag' in q) return kept[q.tag];
    if ('safe' in q) return q.safe === 'union' ? keep(B.orMany([safe])) : safe;
    if ('any' in q) return keep(B.orMany(q.any.map((t) => kept[t])));
    if ('or' in q) return keep(B.orMany(q.or.map(evaluate)));
    const parts = q.and.map(evaluate).sort((a, b) => a.size - b.size);
    let out = parts[0];
    for (const p of parts.slice(1)) out = keep(B.and(out, p));
    for (const x of q.not) out = keep(B.andNot(out, evaluate(x)));
    return out;
  };
  return {
    memory,
    cost,
    run: (q) => {
      const s = evaluate(q);
      const out = { page: s.toReversed(PAGE), total: s.size };
      for (const b of made) b.dispose();
      made = [];
      return out;
    },
  };
}

/** A full collection: with --expose-gc, or with the flag set now. */
function gc(): void {
  let collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) {
    v8.setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}

/**
 * V8's heap and what it counts outside it (typed arrays), after full collections. Not RSS: the
 * build's freed copies stay in the process and would be counted.
 */
function held(): number {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/**
 * What PostSets.build keeps within the budget, from each tag's bytes: the most used tags up to
 * MOST_USED_SHARE of it, then the least used up to all of it. (It checks an estimate before it
 * reads a tag; here the exact size is known.)
 */
function withinBudget(board: Board, cost: Float64Array) {
  const byUse = Array.from({ length: TAGS }, (_, i) => i + 1).sort((a, b) => board.tags[b].length - board.tags[a].length || b - a);
  let used = 0;
  let most = 0;
  while (most < TAGS && used + cost[byUse[most]] <= BUDGET * MOST_USED_SHARE) used += cost[byUse[most++]];
  let least = 0;
  for (let i = TAGS - 1; i >= most && used + cost[byUse[i]] <= BUDGET; i--, least++) used += cost[byUse[i]];
  return { bytes: used, most, least, rarestOfMost: most ? board.tags[byUse[most - 1]].length : 0 };
}

const quantile = (xs: number[], q: number) => xs.slice().sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];

function timeEach(qs: Q[], run: (q: Q) => unknown): number[] {
  return qs.map((q) => {
    const t = performance.now();
    run(q);
    return (performance.now() - t) * 1000;
  });
}

/** The sets of one representation, what they take, and the queries: the board itself is not kept. */
async function prepare(which: string) {
  const R = which === 'roaring' ? await loadRoaring() : null;
  const board = makeBoard(SEED);
  const shapes = queries(board, SEED);
  const before = held();
  const native = R?.RoaringBitmap32.getRoaringUsedMemory() ?? 0;
  const started = performance.now();
  const side = R ? roaring(R, board) : ours(board);
  const buildMs = performance.now() - started;
  const heap = held() - before;
  const allocated = (R?.RoaringBitmap32.getRoaringUsedMemory() ?? native) - native;
  // roaring's wrappers are on V8's heap, its containers outside: each tag is charged its share of the first.
  if (R) for (let r = 1; r <= TAGS; r++) side.cost[r] += heap / TAGS;
  const links = board.tags.reduce((n, t) => n + t.length, 0);
  const boardText =
    `${POSTS.toLocaleString('en-US')} posts, ${TAGS.toLocaleString('en-US')} tags (c = ${board.c.toFixed(3)}), ${(links / POSTS).toFixed(2)} tags a post, ` +
    `the most used on ${board.tags[1].length.toLocaleString('en-US')} posts, ${board.tags.filter((t) => isBitmap(t.length)).length} on 1 post in ${BITMAP_AT} or more`;
  return { side, shapes, boardText, memory: { ...side.memory, heap, allocated, buildMs, budget: withinBudget(board, side.cost) } };
}

/** One representation in this process: its memory and its times, as JSON on the last line. */
async function measure(which: string): Promise<void> {
  // The board (40 MB of ids) is gone by now: a server does not hold it, and it would lengthen every full collection.
  const { side, shapes, boardText, memory } = await prepare(which);
  held();
  const digests = shapes.map(({ qs }) => {
    const h = createHash('sha1');
    for (const q of qs) {
      const { page, total } = side.run(q);
      h.update(`${total}:${page.join()};`);
    }
    return h.digest('hex');
  });
  const times = shapes.map(() => [] as number[]);
  for (let round = 0; round < ROUNDS; round++) shapes.forEach(({ qs }, i) => times[i].push(...timeEach(qs, side.run)));
  const decode = side.decode;
  const results = shapes.map(({ name, qs }, i) => ({
    name,
    queries: qs.length,
    digest: digests[i],
    results: quantile(
      qs.map((q) => side.run(q).total),
      0.5,
    ),
    median: quantile(times[i], 0.5),
    p99: quantile(times[i], 0.99),
    decode: decode ? quantile(timeEach(qs, decode), 0.5) : null,
  }));
  console.log(JSON.stringify({ board: boardText, memory, results }));
}

type Measured = {
  board: string;
  memory: Record<string, any>;
  results: { name: string; queries: number; digest: string; results: number; median: number; p99: number; decode: number | null }[];
};

function child(which: string): Measured {
  const out = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], {
    env: { ...process.env, SETS_MICRO: which },
    encoding: 'utf8',
    maxBuffer: 1 << 24,
    timeout: 150_000,
  });
  if (out.status !== 0) throw new Error(`${which}: exited with ${out.status}\n${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop()!);
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const us = (x: number) => (x < 10 ? x.toFixed(1) : Math.round(x).toLocaleString('en-US'));
const n = (x: number) => x.toLocaleString('en-US');

async function main(): Promise<void> {
  const R = await loadRoaring();
  console.log(
    `${new Date().toISOString()}, ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} cores, Node ${process.version}, load ${os.loadavg()[0].toFixed(2)}`,
  );
  console.log(R ? `roaring ${R.PackageVersion} (CRoaring ${R.CRoaringVersion})` : 'roaring not found (npm install it elsewhere, set ROARING_PATH): ours only');
  const o = child('ours');
  const r = R ? child('roaring') : null;
  console.log(`board: ${o.board}; load after ${os.loadavg()[0].toFixed(2)}`);
  r?.results.forEach((x, i) => {
    if (x.digest !== o.results[i].digest) throw new Error(`${x.name}: roaring's answers differ from ours`);
  });

  console.log(`\n${n(QUERIES)} distinct queries a shape, each run ${ROUNDS} times; microseconds a query, to a page of ${PAGE} and the exact total:\n`);
  console.log('| Query | Matches (median) | Ours median | Ours p99 | Ours decoding (median) | Roaring median | Roaring p99 |');
  console.log('|---|--:|--:|--:|--:|--:|--:|');
  o.results.forEach((x, i) => {
    const y = r?.results[i];
    console.log(`| ${x.name} | ${n(x.results)} | ${us(x.median)} | ${us(x.p99)} | ${us(x.decode ?? 0)} | ${y ? us(y.median) : '-'} | ${y ? us(y.p99) : '-'} |`);
  });

  const budget = (b: Record<string, number>) =>
    `${mb(b.bytes)}: ${n(b.most)} most used (down to ${n(b.rarestOfMost)} posts) and ${n(b.least)} least used, ${n(TAGS - b.most - b.least)} read from SQL`;
  const m = o.memory;
  console.log('\nMemory, every tag kept:');
  console.log(
    `- ours: ${mb(m.bytes)} (${m.bitmaps} bitmaps, ${n(m.lists)} id lists of ${mb(m.listBytes)}); heap and typed arrays +${mb(m.heap)}; built in ${Math.round(m.buildMs)} ms`,
  );
  if (r) {
    const q = r.memory;
    console.log(
      `- roaring: allocated ${mb(q.allocated)} (getRoaringUsedMemory) and ${mb(q.heap)} of wrappers on the heap; ` +
        `serialized ${mb(q.croaring)} (croaring), ${mb(q.portable)} (portable), ${mb(q.frozen)} (frozen); built in ${Math.round(q.buildMs)} ms`,
    );
  }
  console.log(`\nWithin the 12 MB budget (tag-sets.ts's rule, each tag's own bytes):\n- ours: ${budget(m.budget)}`);
  if (r) console.log(`- roaring: ${budget(r.memory.budget)}`);
}

if (process.env.SETS_MICRO) await measure(process.env.SETS_MICRO);
else await main();
