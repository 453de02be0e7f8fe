import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  allOfNoneOf,
  below,
  bitsOf,
  descending,
  difference,
  eachId,
  fromIds,
  has,
  intersection,
  memberDescending,
  pageOf,
  type PostSet,
  Scratch,
  sizeOf,
  union,
  UNION_SCANNED,
  unionDescending,
  within,
} from './post-set.ts';

const WORDS = 8;
const MAX_ID = WORDS * 32 - 1;

/** A set of ids, kept either way: the operations must not care. */
const setArb = fc
  .tuple(fc.uniqueArray(fc.integer({ min: 0, max: MAX_ID }), { maxLength: 60 }), fc.boolean())
  .map(([ids, dense]): { plain: Set<number>; set: PostSet } => {
    const sparse = fromIds(ids);
    return { plain: new Set(ids), set: dense ? { bits: bitsOf(sparse, WORDS) } : sparse };
  });

const desc = (xs: Iterable<number>) => [...xs].sort((a, b) => b - a);
const all = (s: PostSet) => pageOf(s, 'desc', 0, Infinity);

test('union, intersection and difference agree with plain sets, sparse or dense', () => {
  fc.assert(
    fc.property(fc.array(setArb, { minLength: 1, maxLength: 4 }), (sets) => {
      const plains = sets.map((s) => s.plain);
      const parts = sets.map((s) => s.set);
      assert.deepEqual(all(union(parts, WORDS)), desc(new Set(plains.flatMap((p) => [...p]))));
      assert.deepEqual(all(union([], WORDS)), []);
      assert.deepEqual(all(intersection(parts, WORDS)), desc([...plains[0]].filter((id) => plains.every((p) => p.has(id)))));
      assert.deepEqual(all(difference(parts[0], parts.slice(1), WORDS)), desc([...plains[0]].filter((id) => !plains.slice(1).some((p) => p.has(id)))));
    }),
  );
});

test('a union of sparse sets that stays sparse, merged or sorted together, holds each id of them once, highest first', () => {
  fc.assert(
    fc.property(fc.array(fc.uniqueArray(fc.integer({ min: 0, max: MAX_ID }), { maxLength: 60 }), { minLength: 2, maxLength: 12 }), (lists) => {
      const got = union(
        lists.map((ids) => fromIds(ids)),
        4_000,
      );
      assert.ok('ids' in got, 'sparse');
      assert.deepEqual(all(got), desc(new Set(lists.flat())));
    }),
  );
});

test('within keeps the posts of id spans, sparse or dense, edges included', () => {
  const span = fc.tuple(fc.integer({ min: -5, max: MAX_ID + 5 }), fc.integer({ min: 0, max: 70 })).map(([lo, n]): [number, number] => [lo, lo + n]);
  fc.assert(
    fc.property(setArb, fc.array(span, { minLength: 1, maxLength: 3 }), ({ plain, set }, spans) => {
      const want = desc([...plain].filter((id) => spans.some(([lo, hi]) => id >= lo && id <= hi)));
      assert.deepEqual(all(within(set, spans, WORDS)), want);
    }),
  );
});

/** A set as a bitmap that may be shorter or longer than WORDS (kept sets grow apart), or as ids. */
const ragged = fc.tuple(fc.integer({ min: WORDS - 3, max: WORDS + 2 }), fc.boolean()).chain(([length, dense]) =>
  fc.uniqueArray(fc.integer({ min: 0, max: length * 32 - 1 }), { maxLength: 120 }).map((ids): { plain: Set<number>; set: PostSet } => {
    const sparse = fromIds(ids);
    return { plain: new Set(ids), set: dense ? { bits: bitsOf(sparse, length) } : sparse };
  }),
);

test("posts in every set of one list and none of another agree with plain sets, whatever the bitmaps' lengths", () => {
  fc.assert(
    fc.property(fc.array(ragged, { minLength: 1, maxLength: 5 }), fc.array(ragged, { maxLength: 5 }), (plus, minus) => {
      const want = desc([...plus[0].plain].filter((id) => id <= MAX_ID && plus.every((p) => p.plain.has(id)) && !minus.some((m) => m.plain.has(id))));
      const scratch = new Scratch();
      const got = allOfNoneOf(
        plus.map((p) => p.set),
        minus.map((m) => m.set),
        WORDS,
        scratch.take,
      );
      // Ids past WORDS words may stay in a sparse answer: the search's sets never hold any.
      assert.deepEqual(
        all(got).filter((id) => id <= MAX_ID),
        want,
      );
      scratch.release();
    }),
  );
});

test('pages in both directions, sizes, membership and the cursor agree with plain sets', () => {
  fc.assert(
    fc.property(setArb, fc.nat(70), fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: MAX_ID + 1 }), ({ plain, set }, offset, limit, cursor) => {
      const sorted = desc(plain);
      assert.deepEqual(pageOf(set, 'desc', offset, limit), sorted.slice(offset, offset + limit));
      assert.deepEqual(pageOf(set, 'asc', offset, limit), [...sorted].reverse().slice(offset, offset + limit));
      assert.equal(sizeOf(set), plain.size);
      for (let id = 0; id <= MAX_ID; id += 7) assert.equal(has(set, id), plain.has(id));
      assert.deepEqual(
        all(below(set, cursor, WORDS)),
        sorted.filter((id) => id < cursor),
      );
    }),
  );
});

test('a set read from the top one id at a time, and tested by ids asked in descending order, agrees with plain sets', () => {
  fc.assert(
    fc.property(setArb, fc.uniqueArray(fc.integer({ min: 0, max: MAX_ID }), { maxLength: 40 }), ({ plain, set }, asked) => {
      const walk = descending(set);
      const read: number[] = [];
      for (let id = walk.next(); id >= 0; id = walk.next()) read.push(id);
      assert.deepEqual(read, desc(plain));
      assert.equal(walk.next(), -1);
      const member = memberDescending(descending(set));
      for (const id of desc(asked)) assert.equal(member(id), plain.has(id), String(id));
    }),
  );
  // Bit 31 of a word, and the last id of the last word.
  const top = { bits: Int32Array.of(1 << 31, 0, -1 << 31) };
  const walk = descending(top);
  assert.deepEqual([walk.next(), walk.next(), walk.next()], [95, 31, -1]);
});

test('bitmaps given back by one search and taken by the next give the same answers as new ones', () => {
  fc.assert(
    fc.property(
      fc.array(fc.array(setArb, { minLength: 2, maxLength: 4 }), { minLength: 2, maxLength: 5 }),
      fc.integer({ min: 0, max: MAX_ID + 1 }),
      (searches, cursor) => {
        for (const sets of searches) {
          const scratch = new Scratch();
          const plains = sets.map((s) => s.plain);
          const parts = sets.map((s) => s.set);
          const some = union(parts, WORDS, scratch.take);
          assert.deepEqual(all(some), desc(new Set(plains.flatMap((p) => [...p]))));
          assert.deepEqual(all(intersection(parts, WORDS, scratch.take)), desc([...plains[0]].filter((id) => plains.every((p) => p.has(id)))));
          assert.deepEqual(
            all(difference(parts[0], parts.slice(1), WORDS, scratch.take)),
            desc([...plains[0]].filter((id) => !plains.slice(1).some((p) => p.has(id)))),
          );
          assert.deepEqual(
            all(below(some, cursor, WORDS, scratch.take)),
            all(some).filter((id) => id < cursor),
          );
          scratch.release();
        }
      },
    ),
  );
});

test('eachId visits the ids in either direction and stops when told', () => {
  fc.assert(
    fc.property(setArb, fc.nat(70), ({ plain, set }, stopAfter) => {
      for (const dir of ['desc', 'asc'] as const) {
        const seen: number[] = [];
        eachId(set, dir, (id) => {
          seen.push(id);
          return seen.length < stopAfter;
        });
        const sorted = dir === 'desc' ? desc(plain) : desc(plain).reverse();
        assert.deepEqual(seen, sorted.slice(0, Math.max(1, stopAfter)));
      }
    }),
  );
});

test('a union read from the top gives each id of its parts once, highest first, for few parts and for a heap of many', () => {
  fc.assert(
    fc.property(fc.array(setArb, { minLength: 1, maxLength: 3 * UNION_SCANNED }), fc.nat(200), (sets, stopAfter) => {
      const want = desc(new Set(sets.flatMap((s) => [...s.plain])));
      const walk = unionDescending(sets.map((s) => descending(s.set)));
      const got: number[] = [];
      for (let id = walk.next(); id >= 0 && got.length < stopAfter; id = walk.next()) got.push(id);
      assert.deepEqual(got, want.slice(0, stopAfter));
    }),
  );
});
