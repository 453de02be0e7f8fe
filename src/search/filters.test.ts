import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Lookups } from './compile.ts';
import { type Compiled, type Expr, ORDERS } from './expr.ts';
import { checkEntry, filterExpr } from './filters.ts';
import { QueryError } from './parse.ts';
import { plan } from './plan.ts';
import { DEFAULT_SEARCH } from './settings.ts';
import { simplify } from './search.ts';
import type { SetIndexes } from './sets/indexes.ts';

/** A board with two tags, `cat` (1) and `dog` (2). */
const lookups: Lookups = {
  tags: async (names) => new Map(names.flatMap((n) => (n === 'cat' ? [[n, { id: 1 }]] : n === 'dog' ? [[n, { id: 2 }]] : []))),
  wildcard: async (pattern) => (pattern === 'ca*' ? [{ id: 1, name: 'cat' }] : []),
  user: async () => undefined,
  pool: async () => undefined,
};
const CAT: Expr = { kind: 'tags', ids: [1] };
const DOG: Expr = { kind: 'tags', ids: [2] };
const ALL = ['safe', 'sketchy', 'unsafe'] as const;
const NOW = Date.parse('2026-06-15T12:00:00.000Z');

test('filters that hide nothing add nothing: every rating and no entry, or only tags nobody has', async () => {
  assert.equal(await filterExpr({ ratings: ALL, blacklist: [] }, DOG, lookups, NOW), null);
  assert.equal(await filterExpr({ ratings: null, blacklist: [] }, DOG, lookups, NOW), null);
  assert.equal(await filterExpr({ ratings: ALL, blacklist: ['no_such_tag', 'nor_this'] }, DOG, lookups, NOW), null);
});

test('ratings shown and the blacklist: rating:(shown) AND NOT (entry OR entry), entries compiled like q', async () => {
  assert.deepEqual(await filterExpr({ ratings: ['safe'], blacklist: ['cat', 'ca* -dog'] }, DOG, lookups, NOW), {
    kind: 'and',
    exprs: [
      { kind: 'rating', values: ['safe'] },
      { kind: 'not', expr: { kind: 'or', exprs: [CAT, { kind: 'and', exprs: [CAT, { kind: 'not', expr: DOG }] }] } },
    ],
  });
});

test('a request that names a rating, even negated, keeps its own: the ratings shown are not added, the blacklist is', async () => {
  const named: Expr = { kind: 'and', exprs: [DOG, { kind: 'not', expr: { kind: 'rating', values: ['unsafe'] } }] };
  assert.deepEqual(await filterExpr({ ratings: ['safe'], blacklist: ['cat'] }, named, lookups, NOW), { kind: 'not', expr: CAT });
  assert.equal(await filterExpr({ ratings: ['safe'], blacklist: [] }, { kind: 'rating', values: ['unsafe'] }, lookups, NOW), null);
});

test('an entry is checked as q is, at the position of what is wrong; order: and an empty entry are refused', async () => {
  const position = async (text: string) => {
    try {
      await checkEntry(text, NOW);
    } catch (err) {
      assert.ok(err instanceof QueryError, String(err));
      return err.position;
    }
    return null;
  };
  assert.equal(await position('cat (dog'), 4);
  assert.equal(await position('cat order:likes'), 4);
  assert.equal(await position('width:wide'), 6);
  assert.equal(await position(''), 0);
  assert.equal(await position('cat -dog* user:nobody rating:q date:2020'), null, 'unknown names are no error: they match nothing');
});

test('the planner keeps a typical filtered query in memory: tag AND rating:safe AND NOT blacklisted is served by the sets', async () => {
  const filter = await filterExpr({ ratings: ['safe'], blacklist: ['dog'] }, CAT, lookups, NOW);
  const c: Compiled = { expr: simplify({ kind: 'and', exprs: [CAT, filter!] }), order: ORDERS.newest, seed: 0, wildcards: [] };
  const indexes = { posts: { newestId: 1_000_000 } } as unknown as SetIndexes;
  assert.equal(plan(c, DEFAULT_SEARCH, indexes), 'sets');
});
