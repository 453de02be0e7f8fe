import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { eachDatabase } from '../../../test/helpers.ts';
import { createPost, createUser } from '../../../test/factories.ts';
import { NewestOrder } from '../sets/newest-order.ts';
import { TagSets } from '../sets/tag-sets.ts';
import { KindSets, RatingSets } from '../sets/column-sets.ts';
import { tagsByName } from '../../db/queries/tag-names.ts';
import { type Compiled, type Expr, ORDERS, SORT_ORDERS } from '../expr.ts';
import { plan } from '../plan.ts';
import { DEFAULT_SEARCH } from '../settings.ts';
import { drivenSearch } from './driven.ts';
import type { KeptTags } from '../sets/indexes.ts';
import { datePage, setsSearch } from './sets.ts';
import type { AllPosts } from '../sets/indexes.ts';
import { KeptHeads, KeptTotals } from '../sets/totals.ts';
import { TermWords } from '../lookups/title-terms.ts';
import { WordSets } from '../sets/title-word-sets.ts';

const compiled = (expr: Expr, order: Compiled['order'] = ORDERS.newest): Compiled => ({ expr, order, seed: 0, wildcards: [] });

test('a walk in date order stops once it has met every post that can pass, not at the end of the board', () => {
  // 10,000 posts, newest first 10,000 down to 1; the query's set holds two of the newest.
  let visited = 0;
  const posts = {
    eachByDate(_dir: 'asc' | 'desc', visit: (id: number) => boolean) {
      for (let id = 10_000; id >= 1; id--) {
        visited++;
        if (!visit(id)) return;
      }
    },
  } as unknown as AllPosts;
  const set = new Set([9_990, 9_995]);
  const among = { has: (id: number) => set.has(id), size: set.size };
  const page = datePage(posts, 'desc', 0, 24, among.has, undefined, among);
  assert.deepEqual(page, { ids: [9_995, 9_990], passed: 2 });
  assert.equal(visited, 11);
  visited = 0;
  assert.deepEqual(
    datePage(posts, 'desc', 0, 24, () => false, undefined, { has: () => false, size: 0 }),
    { ids: [], passed: 0 },
  );
  assert.equal(visited, 0, 'an empty set walks nothing');
});

eachDatabase('the in-memory set strategy', (ctx) => {
  const ids: Record<string, number> = {};
  const posts: number[] = [];
  before(async () => {
    const u = await createUser(ctx.database, { username: 'sets' });
    for (let i = 0; i < 40; i++) {
      const tags = ['all', i % 2 ? 'odd' : 'even', ...(i % 5 === 0 ? ['five'] : [])];
      posts.push(await createPost(ctx.database, { uploaderId: u, createdAt: 1_000 + i, tags }));
    }
    for (const [name, tag] of await tagsByName(ctx.database, ['all', 'odd', 'even', 'five'])) ids[name] = tag.id;
  });

  test('tags the process does not keep are read from their links for the query', async () => {
    const real = new TagSets();
    // As if 'five' and 'odd' had not fit the memory budget.
    const missing = new Set([ids.five, ids.odd]);
    const tags: KeptTags = {
      current: (db, v) => real.current(db, v),
      has: (id) => !missing.has(id) && real.has(id),
      get bitmapWords() {
        return real.bitmapWords;
      },
      postsOf: (id) => real.postsOf(id),
    };
    const indexes = { tags, ratings: new RatingSets(), kinds: new KindSets(), posts: new NewestOrder() };
    const q: Expr = {
      kind: 'and',
      exprs: [
        { kind: 'tags', ids: [ids.all] },
        { kind: 'not', expr: { kind: 'tags', ids: [ids.five] } },
        {
          kind: 'or',
          exprs: [
            { kind: 'tags', ids: [ids.odd] },
            { kind: 'tags', ids: [ids.even] },
          ],
        },
      ],
    };
    const want = posts.filter((_, i) => i % 5 !== 0).reverse();
    const page = await setsSearch(ctx.database, compiled(q), 3, 5, indexes, 1_000);
    assert.deepEqual(page, { ids: want.slice(3, 8), total: want.length, estimated: false });
    const oldest = await setsSearch(ctx.database, compiled({ kind: 'not', expr: { kind: 'tags', ids: [ids.odd] } }, ORDERS.oldest), 0, 3, indexes, 1_000);
    assert.deepEqual(oldest?.ids, [posts[0], posts[2], posts[4]]);
    assert.equal(oldest?.total, 20);
  });

  test('a query evaluated whole keeps its first five pages at one data version', async () => {
    const real = new TagSets();
    let reads = 0;
    const counted = new Set(['postsOf', 'markInto', 'descendingOf', 'decodedOf']);
    const tags = new Proxy(real, {
      get(target, name) {
        const value = Reflect.get(target, name, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (counted.has(String(name))) reads++;
          return value.apply(target, args);
        };
      },
    }) as KeptTags;
    const indexes = {
      tags,
      ratings: new RatingSets(),
      kinds: new KindSets(),
      posts: new NewestOrder(),
      totals: new KeptTotals(),
      heads: new KeptHeads(),
      version: 1,
    };
    // A union of 1,000 sets (the same one: a wildcard's worth of tests a post, and more) is too
    // costly to test post by post even once the total is known: the query is evaluated whole.
    const q: Expr = {
      kind: 'and',
      exprs: [
        { kind: 'tags', ids: [ids.all] },
        { kind: 'not', expr: { kind: 'tags', ids: Array(1_000).fill(ids.five) } },
      ],
    };
    const want = posts.filter((_, i) => i % 5 !== 0).reverse();
    const page = async (offset: number) => {
      const got = await setsSearch(ctx.database, compiled(q), offset, 5, indexes, 1_000);
      assert.deepEqual(got, { ids: want.slice(offset, offset + 5), total: want.length, estimated: false }, `offset ${offset}`);
    };
    await page(0);
    assert.ok(reads > 0, 'the first ask evaluates the query');
    reads = 0;
    for (const offset of [5, 10, 25, 0]) await page(offset);
    assert.equal(reads, 0, 'pages within the first 120 posts are kept');
    // Another data version: nothing kept at the one before is given back.
    indexes.version = 2;
    await page(5);
    assert.ok(reads > 0, 'evaluated again at the next data version');
  });

  test("a title's text is the posts of the title words that contain it, kept or read for the query", async () => {
    const u = await createUser(ctx.database, { username: 'titles' });
    const titled: Record<string, number> = {};
    for (const title of ['Sunset Harbour', 'harbourside walk', 'sunsets', 'a walk', 'Harbo']) {
      titled[title] = await createPost(ctx.database, { uploaderId: u, createdAt: 2_000 + Object.keys(titled).length, title, tags: [] });
    }
    const words = new TermWords();
    const harbour = await words.idsOf(ctx.database, 'harbo');
    assert.equal(harbour?.length, 3, 'harbour, harbourside and harbo');
    // Texts the words cannot stand for: SQL reads the titles.
    assert.equal(await words.idsOf(ctx.database, 'a walk'), null, 'a space');
    assert.equal(await words.idsOf(ctx.database, 'wa'), null, 'under 3 characters');
    assert.equal(await words.idsOf(ctx.database, 'harbø'), null, 'not ASCII');
    const expr: Expr = { kind: 'title', text: 'harbo', words: harbour! };
    const want = [titled.Harbo, titled['harbourside walk'], titled['Sunset Harbour']];
    const base = { tags: new TagSets(), ratings: new RatingSets(), kinds: new KindSets(), posts: new NewestOrder() };
    for (const kept of [undefined, new WordSets()]) {
      const page = await setsSearch(ctx.database, compiled(expr), 0, 10, { ...base, words: kept }, 1_000);
      assert.deepEqual(page, { ids: want, total: 3, estimated: false }, kept ? 'from kept word sets' : 'read for the query');
    }
    assert.equal(plan(compiled({ kind: 'or', exprs: [expr, { kind: 'tags', ids: [ids.five] }] }), DEFAULT_SEARCH, base), 'sets');
    assert.equal(plan(compiled({ kind: 'title', text: 'harbo' }), DEFAULT_SEARCH, base), 'sql', 'no words: not a set');
  });

  test('the driven strategy reads the candidates of its sets, and gives way to SQL past its cap', async () => {
    const indexes = { tags: new TagSets(), ratings: new RatingSets(), kinds: new KindSets(), posts: new NewestOrder() };
    const q: Expr = {
      kind: 'and',
      exprs: [
        { kind: 'tags', ids: [ids.five] },
        { kind: 'num', field: 'created', ranges: [{ lo: 1_010, hi: Infinity }] },
        { kind: 'num', field: 'likes', ranges: [{ lo: 0, hi: 0 }] },
      ],
    };
    const want = posts.filter((_, i) => i % 5 === 0 && i >= 10).reverse();
    assert.deepEqual(await drivenSearch(ctx.database, compiled(q, ORDERS.oldest), 1, 2, indexes, 1_000), {
      ids: [...want].reverse().slice(1, 3),
      total: want.length,
      estimated: false,
    });
    assert.equal(await drivenSearch(ctx.database, compiled(q), 0, 2, indexes, 1_000, 5), null, '6 candidates, at most 5');
  });

  test('the planner takes the sets for sets alone in id or date order, the driven strategy for sets with other conditions, and SQL for the rest', () => {
    const indexes = {
      tags: new TagSets(),
      ratings: new RatingSets(),
      kinds: new KindSets(),
      posts: {
        newestId: 1_000_000,
        refreshAt: async () => true,
        allPosts: () => new Int32Array(0),
        markCreatedIn: () => {},
        eachByDate: () => {},
        idsCreatedIn: () => null,
        size: 0,
        page: () => [],
        createdIn: () => ({ ids: [], total: 0 }),
      },
    };
    const tags: Expr = {
      kind: 'and',
      exprs: [
        { kind: 'tags', ids: [1] },
        { kind: 'not', expr: { kind: 'tags', ids: [2] } },
      ],
    };
    assert.equal(plan(compiled(tags), DEFAULT_SEARCH, indexes), 'sets');
    assert.equal(plan(compiled(tags, ORDERS.id_asc), DEFAULT_SEARCH, indexes), 'sets');
    assert.equal(plan(compiled({ kind: 'and', exprs: [tags, { kind: 'fav', userId: 3 }] }), DEFAULT_SEARCH, indexes), 'sets');
    const safe: Expr = { kind: 'rating', values: ['safe'] };
    assert.equal(plan(compiled({ kind: 'and', exprs: [tags, safe, { kind: 'type', values: ['gif'] }] }), DEFAULT_SEARCH, indexes), 'sets');
    const liked: Expr = { kind: 'num', field: 'likes', ranges: [{ lo: 3, hi: Infinity }] };
    assert.equal(plan(compiled(tags, ORDERS.likes), DEFAULT_SEARCH, indexes), 'driven');
    assert.equal(plan(compiled({ kind: 'and', exprs: [tags, liked] }), DEFAULT_SEARCH, indexes), 'driven');
    assert.equal(plan(compiled({ kind: 'and', exprs: [{ kind: 'uploader', userId: 1 }, liked] }), DEFAULT_SEARCH, indexes), 'driven');
    // Nothing that selects a few posts: a NOT of a tag, or an OR with a column condition in it.
    assert.equal(plan(compiled({ kind: 'and', exprs: [{ kind: 'not', expr: { kind: 'tags', ids: [1] } }, liked] }), DEFAULT_SEARCH, indexes), 'sql');
    assert.equal(plan(compiled({ kind: 'or', exprs: [{ kind: 'tags', ids: [1] }, liked] }), DEFAULT_SEARCH, indexes), 'sql');
    // A small board: walking its posts costs less than reading candidates by id.
    const small = { ...indexes, posts: { ...indexes.posts, newestId: 500 } };
    assert.equal(plan(compiled({ kind: 'and', exprs: [tags, liked] }), DEFAULT_SEARCH, small), 'sql');
    assert.equal(plan(compiled(tags), { ...DEFAULT_SEARCH, strategy: 'sql' }, indexes), 'sql');
    assert.equal(plan(compiled(tags), DEFAULT_SEARCH), 'sql');
    // With the counts kept: a rating and a floor of likes, most liked first (the old list's sortBy=most_liked), from memory.
    const counted = {
      ...indexes,
      numbers: { current: async () => 0, column: () => () => 0, leading: () => new Int32Array(0), values: () => ({ array: new Int32Array(0), capped: -1 }) },
    };
    assert.equal(plan(compiled({ kind: 'and', exprs: [safe, liked] }, SORT_ORDERS.most_liked), DEFAULT_SEARCH, counted), 'columns');
    assert.equal(plan(compiled({ kind: 'and', exprs: [tags, liked] }, ORDERS.likes), DEFAULT_SEARCH, counted), 'columns');
  });
});
