import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, listPage } from '../../../test/helpers.ts';
import { createPost, createUser } from '../../../test/factories.ts';
import { NewestOrder } from './newest-order.ts';
import { TagSets } from './tag-sets.ts';
import { mergeDescending, searchOneTerm, titleMatches } from './term-search.ts';

const HOUR = 3_600_000;

test('two descending id lists merge into one, each id once', () => {
  assert.deepEqual(mergeDescending([9, 7, 4, 2], [8, 7, 3, 2, 1]), [9, 8, 7, 4, 3, 2, 1]);
  assert.deepEqual(mergeDescending([], [5, 1]), [5, 1]);
  assert.deepEqual(mergeDescending([6], []), [6]);
});

eachDatabase('one search term read newest first from the title index and the tag', (ctx) => {
  let u: number;
  const start = Date.parse('2026-01-01T00:00:00Z');
  before(async () => {
    u = await createUser(ctx.database, { username: 'searcher' });
    // Uploaded in date order, as a board's posts are: "red" in some titles, the tag on others, both on a few.
    for (let i = 0; i < 60; i++) {
      const title = i % 3 === 0 ? `Red fox ${i}` : i % 7 === 0 ? `Shredded paper ${i}` : `Blue sea ${i}`;
      const tags = i % 4 === 0 ? ['red', 'misc'] : ['misc'];
      await createPost(ctx.database, { uploaderId: u, title, tags, createdAt: start + i * HOUR });
    }
  });

  const fastPath = async (order: NewestOrder, search: string) => {
    const filter = { tags: [], terms: [{ text: search, tagId: null, tagCount: 0 }] };
    return searchOneTerm(ctx.database, order, filter, 0, 5);
  };

  const same = async (order: NewestOrder, what: string) => {
    for (const search of ['red', 'fox', 'shred', 'nothing']) {
      for (const [offset, limit] of [
        [0, 7],
        [5, 7],
        [20, 10],
        [40, 10],
        [200, 5],
      ]) {
        const viaIndex = await listPage(ctx.app.deps, { search, offset, limit }, { order });
        const general = await listPage(ctx.app.deps, { search, offset, limit });
        assert.deepEqual(viaIndex, general, `${what}: ${search} offset ${offset}`);
      }
    }
  };

  test('pages and exact totals equal the general query, which it does not run', async () => {
    const order = new NewestOrder();
    await same(order, 'in upload order');
    assert.notEqual(await fastPath(order, 'red'), null);
    const red = await listPage(ctx.app.deps, { search: 'red', limit: 100 }, { order });
    // Titles with "red" (20) or "shredded" (6), and tagged posts with neither (8).
    assert.equal(red.totalPosts, 34);
    assert.equal(red.totalIsEstimate, false);
  });

  test('with the tag of the term kept as a bitmap or as an id list: the same pages and totals as the general query', async () => {
    const red = await ctx.database.selectFrom('tags').select('id').where('name', '=', 'red').executeTakeFirstOrThrow();
    // Every tag on at least 1 post in 1e9 (all of them) as a bitmap; then none.
    for (const [bitmapAt, asBitmap] of [
      [1e9, true],
      [1, false],
    ] as const) {
      const tagSets = new TagSets({ bitmapAt });
      const memory = { order: new NewestOrder(), tagSets };
      for (const search of ['red', 'misc', 'shred']) {
        for (const [offset, limit] of [
          [0, 7],
          [5, 7],
          [20, 10],
          [200, 5],
        ]) {
          const fromMemory = await listPage(ctx.app.deps, { search, offset, limit }, memory);
          const general = await listPage(ctx.app.deps, { search, offset, limit });
          assert.deepEqual(fromMemory, general, `${search} offset ${offset} (bitmaps: ${asBitmap})`);
        }
      }
      assert.equal(tagSets.has(red.id), true, 'the tag was read from memory');
      assert.equal(tagSets.hasBitmap(red.id), asBitmap);
    }
  });

  test('title matches come newest first however small the first window, as a scan of every title finds them', async () => {
    const db = ctx.database;
    const all = await db.selectFrom('posts').select(['id', 'title']).orderBy('id', 'desc').execute();
    const newestId = all[0].id;
    for (const word of ['red', 'shred', 'sea', 'nothing']) {
      const every = all.filter((p) => p.title.toLowerCase().includes(word)).map((p) => p.id);
      for (const count of [1, 3, 25, 100]) {
        for (const window of [1, 2, 5, 1_000]) {
          const found = await titleMatches(db, word, count, newestId, { firstWindow: window });
          assert.deepEqual(found.ids, every.slice(0, count), `${word} ${count} ${window}`);
          // The titles of a term found in one title word are counted ("red" is in two: red, shredded).
          const counted = word !== 'red';
          assert.equal(found.total, counted ? every.length : null, `${word} total`);
        }
      }
    }
  });

  test('a post dated before older ids turns the index path off, and answers stay right', async () => {
    const order = new NewestOrder();
    await createPost(ctx.database, { uploaderId: u, title: 'Red backdated', tags: ['red'], createdAt: start - HOUR });
    assert.equal(await fastPath(order, 'red'), null);
    await same(order, 'with a backdated post');
  });
});

eachDatabase('one search term with many title matches', (ctx) => {
  before(async () => {
    const u = await createUser(ctx.database, { username: 'many' });
    const start = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 700; i++) {
      const title = i % 5 === 4 ? `Plain ${i}` : `${i % 2 ? 'Redwood' : 'Redwoods'} ${i}`;
      await createPost(ctx.database, { uploaderId: u, title, tags: [], createdAt: start + i * HOUR });
    }
  });

  test('past the sample the total is counted (a term inside one title word) or estimated, says which, and is near the true count', async () => {
    const order = new NewestOrder();
    for (const search of ['redwoods', 'redwood']) {
      const general = await listPage(ctx.app.deps, { search, offset: 30, limit: 10 });
      const viaIndex = await listPage(ctx.app.deps, { search, offset: 30, limit: 10 }, { order });
      assert.deepEqual(viaIndex.posts, general.posts, search);
      assert.equal(general.totalPosts, search === 'redwoods' ? 280 : 560);
      if (search === 'redwoods') {
        // One word: the count of its posts.
        assert.deepEqual([viaIndex.totalPosts, viaIndex.totalIsEstimate], [280, false]);
      } else {
        // In two words (redwood, redwoods): scaled from the newest matches.
        assert.equal(viaIndex.totalIsEstimate, true);
        assert.ok(Math.abs(viaIndex.totalPosts - 560) <= 56, `estimate ${viaIndex.totalPosts}`);
      }
    }
  });
});
