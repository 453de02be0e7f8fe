// The columns strategy on a board big enough for its shortcuts (the leading posts of a count, a
// sampled total), against a plain evaluation over every post.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mulberry as rng } from '../../../test/prng.ts';
import type { Database } from '../../db/engine.ts';
import { columnsSearch } from './columns.ts';
import { type Compiled, type Expr, type Interval, ORDERS, type OrderKey, randomRank } from '../expr.ts';
import { descending, type PostSet, sizeOf } from '../sets/post-set.ts';
import type { CountField, KeptNumbers, KeptTags, SetIndexes } from '../sets/indexes.ts';
import { COUNT_CAP } from './sql.ts';
import { KeptHeads } from '../sets/totals.ts';

const POSTS = 60_000;
const WORDS = (POSTS >>> 5) + 1;

const rand = rng(21);
// Likes as boards have them: most posts few, a long tail of many.
const likes = Int32Array.from({ length: POSTS + 1 }, (_, id) => (id === 0 ? 0 : Math.max(0, Math.floor(1 / (rand() + 0.001)) - 1)));
const favs = Int32Array.from({ length: POSTS + 1 }, () => Math.floor(rand() * 4));
/** Tag 1 on 70% of posts (a bitmap), tag 2 on 40% (ids), tag 3 on 1%. */
const share = [0, 0.7, 0.4, 0.01];
const tagged = share.map((p) => Array.from({ length: POSTS + 1 }, (_, id) => id > 0 && rand() < p));

function setOf(tag: number): PostSet {
  if (tag === 1) {
    const bits = new Int32Array(WORDS);
    tagged[1].forEach((on, id) => {
      if (on) bits[id >>> 5] |= 1 << (id & 31);
    });
    return { bits };
  }
  const ids: number[] = [];
  for (let id = POSTS; id > 0; id--) if (tagged[tag][id]) ids.push(id);
  return { ids: Int32Array.from(ids) };
}

const sets = new Map([1, 2, 3].map((t) => [t, setOf(t)]));
const tags: KeptTags = {
  current: async () => undefined,
  has: (id) => sets.has(id),
  bitmapWords: WORDS,
  postsOf: (id) => sets.get(id)!,
  // As TagSets keeps them: a list can be read from its top as it is walked (tag 3, small enough, is ranked so).
  hasBitmap: (id) => 'bits' in sets.get(id)!,
  sizeOf: (id) => sizeOf(sets.get(id)!),
  descendingOf: (id) => descending(sets.get(id)!),
  decodedOf: () => undefined,
};
const none: KeptTags = { current: async () => undefined, has: () => false, bitmapWords: WORDS, postsOf: () => ({ ids: new Int32Array(0) }) };
const all = new Int32Array(WORDS).fill(-1);
all[0] &= ~1;
all[WORDS - 1] = (1 << ((POSTS & 31) + 1)) - 1;
const columns: Record<CountField, Int32Array> = { likes, favs, comments: new Int32Array(POSTS + 1) };
const leading = new Map<CountField, Int32Array>();
const numbers: KeptNumbers = {
  current: async () => 0,
  column: (f) => (id) => columns[f][id] ?? 0,
  // As PostNumbers keeps them, a byte a post with the big ones apart: here capped at 100, so
  // the many posts above it are read through column().
  values: (f) => ({ array: Uint8Array.from(columns[f], (v) => Math.min(v, 100)), capped: 100 }),
  leading: (f) => {
    // The true first 2,000 posts of the order, as PostNumbers keeps its prefix.
    if (!leading.has(f)) {
      const ids = Array.from({ length: POSTS }, (_, i) => i + 1).sort((a, b) => columns[f][b] - columns[f][a] || b - a);
      leading.set(f, Int32Array.from(ids.slice(0, 2_000)));
    }
    return leading.get(f)!;
  },
};
const indexes: SetIndexes = {
  tags,
  ratings: none,
  kinds: none,
  numbers,
  posts: {
    refreshAt: async () => true,
    createdIn: () => ({ ids: [], total: 0 }),
    newestId: POSTS,
    allPosts: () => all,
    markCreatedIn: () => {},
    idsCreatedIn: () => null,
    eachByDate: () => {},
    size: 0,
    page: () => [],
  },
};
const db = {} as Database;

/** The query's posts in its order, over every post. */
function plain(tag: number, floor: number, order: readonly OrderKey[], seed: number): number[] {
  const value = (k: OrderKey, id: number) =>
    k.field === 'random' ? randomRank(id, seed) : k.field === 'id' || k.field === 'created' ? id : columns[k.field as CountField][id];
  const ids: number[] = [];
  for (let id = 1; id <= POSTS; id++) if (tagged[tag][id] && likes[id] > floor) ids.push(id);
  return ids.sort((a, b) => {
    for (const k of order) {
      const d = value(k, a) - value(k, b);
      if (d !== 0) return k.dir === 'asc' ? d : -d;
    }
    return 0;
  });
}

const query = (tag: number, floor: number, order: readonly OrderKey[], seed = 7): Compiled => {
  const expr: Expr = {
    kind: 'and',
    exprs: [
      { kind: 'tags', ids: [tag] },
      { kind: 'num', field: 'likes', ranges: [{ lo: floor, hi: Infinity, loOpen: true }] },
    ],
  };
  return { expr, order, seed, wildcards: [] };
};

test('pages and totals equal a plain evaluation, for dense and sparse candidates, in every order the strategy ranks by', async () => {
  const orders = [ORDERS.likes, ORDERS.likes_asc, ORDERS.favs, ORDERS.id, ORDERS.id_asc, ORDERS.newest, ORDERS.random];
  let estimated = 0;
  let exactFromLeaders = 0;
  for (const tag of [1, 2, 3]) {
    for (const floor of [-1, 0, 2, 30, 400]) {
      for (const order of orders) {
        for (const offset of [0, 48, 1_000]) {
          const want = plain(tag, floor, order, 7);
          const got = await columnsSearch(db, query(tag, floor, order), offset, 24, indexes, 5_000);
          const what = `tag ${tag} likes:>${floor} ${order.map((k) => `${k.field} ${k.dir}`).join(', ')} offset ${offset}`;
          assert.ok(got, what);
          assert.deepEqual(got.ids, want.slice(offset, offset + 24), what);
          if (got.estimated) {
            estimated++;
            // An estimate only far above the cap, and near the truth.
            assert.ok(want.length > COUNT_CAP, what);
            assert.ok(Math.abs(got.total - want.length) < want.length * 0.1, `${what}: ${got.total} for ${want.length}`);
          } else {
            assert.equal(got.total, want.length, what);
            if (floor >= 30 && tag === 1) exactFromLeaders++;
          }
        }
      }
    }
  }
  assert.ok(estimated > 0, 'some totals far above the cap are estimated');
  assert.ok(exactFromLeaders > 0, 'high floors are counted exactly');
});

test('any range of a count, open or closed, whole or not, and lists of them, select what a plain evaluation does', async () => {
  const ranges: Interval[][] = [
    [{ lo: 2, hi: 30 }],
    [{ lo: -Infinity, hi: 5, hiOpen: true }],
    [{ lo: 2.5, hi: 140.5 }],
    [{ lo: 99, hi: 101, loOpen: true, hiOpen: true }],
    [{ lo: 150, hi: Infinity }],
    [
      { lo: 1, hi: 1 },
      { lo: 5, hi: 5 },
    ],
  ];
  const inside = (v: number, r: Interval) => (r.loOpen ? v > r.lo : v >= r.lo) && (r.hiOpen ? v < r.hi : v <= r.hi);
  for (const tag of [1, 2, 3]) {
    for (const list of ranges) {
      for (const order of [ORDERS.likes, ORDERS.likes_asc, ORDERS.id]) {
        const expr: Expr = {
          kind: 'and',
          exprs: [
            { kind: 'tags', ids: [tag] },
            { kind: 'num', field: 'likes', ranges: list },
          ],
        };
        const want: number[] = [];
        for (let id = POSTS; id > 0; id--) if (tagged[tag][id] && list.some((r) => inside(likes[id], r))) want.push(id);
        if (order !== ORDERS.id) want.sort((a, b) => (order === ORDERS.likes ? likes[b] - likes[a] : likes[a] - likes[b]) || b - a);
        for (const offset of [0, 48]) {
          const got = await columnsSearch(db, { expr, order, seed: 7, wildcards: [] }, offset, 24, indexes, 5_000);
          const what = `tag ${tag} likes in ${JSON.stringify(list)} ${order.map((k) => `${k.field} ${k.dir}`).join(', ')} offset ${offset}`;
          assert.ok(got, what);
          assert.deepEqual(got.ids, want.slice(offset, offset + 24), what);
          if (!got.estimated) assert.equal(got.total, want.length, what);
        }
      }
    }
  }
});

test('an order by a count keeps its first pages from one ranking, at one stamp of the data and counts', async () => {
  let reads = 0;
  const counted: KeptTags = {
    ...tags,
    postsOf: (id) => {
      reads++;
      return tags.postsOf(id);
    },
    descendingOf: (id) => {
      reads++;
      return tags.descendingOf!(id);
    },
  };
  let countsAt = 0;
  const kept: SetIndexes = { ...indexes, tags: counted, numbers: { ...numbers, current: async () => countsAt }, heads: new KeptHeads(), version: 1 };
  for (const tag of [1, 2, 3]) {
    const want = plain(tag, 0, ORDERS.likes, 7);
    // The total as the strategy gives it without kept pages (estimated for tag 1).
    const total = (await columnsSearch(db, query(tag, 0, ORDERS.likes), 0, 24, indexes, 5_000))?.total;
    const page = async (offset: number) => {
      const got = await columnsSearch(db, query(tag, 0, ORDERS.likes), offset, 24, kept, 5_000);
      assert.deepEqual(got?.ids, want.slice(offset, offset + 24), `tag ${tag}, offset ${offset}`);
      assert.equal(got?.total, total, `tag ${tag}, offset ${offset}`);
    };
    reads = 0;
    await page(0);
    assert.ok(reads > 0, `tag ${tag}: the first ask ranks the candidates`);
    reads = 0;
    for (const offset of [24, 48, 96, 0]) await page(offset);
    assert.equal(reads, 0, `tag ${tag}: the first five pages are kept`);
    await page(1_000);
    assert.ok(reads > 0, `tag ${tag}: a page past them is ranked`);
    // A like moves the counts' stamp: what was kept is not given back.
    countsAt++;
    reads = 0;
    await page(24);
    assert.ok(reads > 0, `tag ${tag}: ranked again once the counts moved`);
  }
});
