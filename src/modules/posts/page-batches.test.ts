import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase } from '../../../test/helpers.ts';
import { addFavorite, addLike, createPool, createPost, createUser } from '../../../test/factories.ts';
import { itemsByIds, itemsOfLists } from './posts.repo.ts';

const HOUR = 3_600_000;

eachDatabase('pages of several requests read in one statement', (ctx) => {
  const ids: number[] = [];
  before(async () => {
    const db = ctx.database;
    const u = await createUser(db, { username: 'maker' });
    for (let i = 0; i < 20; i++) {
      ids.push(
        await createPost(db, {
          uploaderId: u,
          title: `Post ${i}`,
          rating: (['safe', 'sketchy', 'unsafe'] as const)[i % 3],
          tags: i % 4 ? ['common', `t${i % 5}`] : ['common', 'fourth'],
          createdAt: ctx.clock.now() - (20 - i) * HOUR,
        }),
      );
    }
    for (const id of ids.slice(0, 6)) await addLike(db, u, id, ctx.clock.now());
    const fan = await createUser(db, { username: 'fan' });
    for (const id of ids.filter((_, i) => i % 3 === 0)) await addFavorite(db, fan, id, ctx.clock.now());
    await createPool(db, { creatorId: u, name: 'every fifth', postIds: ids.filter((_, i) => i % 5 === 0), at: ctx.clock.now() });
  });

  test('each list gets its own posts, in its order, leaving out those that do not exist', async () => {
    const lists = [[ids[5], ids[2], ids[9]], [], [ids[9], 999_999, ids[0]], [ids[2], ids[5]], [888_888], ids.slice().reverse()];
    const together = await itemsOfLists(ctx.database, lists);
    assert.deepEqual(
      together.map((items) => items.ids),
      lists.map((list) => list.filter((id) => id < 888_888)),
    );
    for (let i = 0; i < lists.length; i++) {
      const alone = await itemsByIds(ctx.database, lists[i], ctx.config);
      assert.deepEqual(JSON.parse(together[i].json), JSON.parse(alone.json), `list ${i}: the same items as read alone`);
    }
    const version = together.find((items) => items.ids.length > 0)!.version;
    assert.ok(version !== undefined && version > 0, 'the data version is read with the items');
  });

  test('requests made at once each get what they asked for: lists, details, profiles, Danbooru pages', async () => {
    // Every read joined with others' on PostgreSQL: pages' items, counters, tag and table sets
    // (fav:, pool:, user:), a post's detail, users and their counts, Danbooru's rows.
    const urls = [
      '/api/posts?q=fav:fan',
      '/api/posts?q=fav:maker',
      '/api/posts?q=pool:1%20t0',
      '/api/posts?q=user:maker%20fourth',
      `/api/posts/${ids[4]}`,
      `/api/posts/${ids[9]}`,
      '/api/users/maker',
      '/api/users/fan',
      '/posts.json?tags=common&limit=4',
      '/posts.json?tags=fav:fan',
      `/posts/${ids[12]}.json`,
      '/api/posts',
      '/api/posts?limit=3',
      '/api/posts?q=fourth',
      '/api/posts?q=t1%20-rating:safe',
      '/api/posts?q=common%20order:likes&limit=5',
      '/api/posts?offset=7&limit=4',
      '/api/posts?q=nothing_here',
      '/api/posts?q=t2%20or%20t3&limit=2&offset=1',
      '/api/posts?q=order:oldest&limit=6',
    ];
    const ask = async (url: string) => {
      const res = await ctx.app.inject({ url });
      assert.equal(res.statusCode, 200, url);
      return res.json();
    };
    const alone = [];
    for (const url of urls) alone.push(await ask(url));
    for (let round = 0; round < 3; round++) {
      const together = await Promise.all([...urls, ...urls].map(ask));
      assert.deepEqual(together, [...alone, ...alone]);
    }
    // A visitor is shown the safe posts only (VISITOR_RATINGS): of those tagged fourth, every third.
    assert.deepEqual(
      alone[urls.indexOf('/api/posts?q=fourth')].posts.map((p: { id: string }) => Number(p.id)),
      ids.filter((_, i) => i % 4 === 0 && i % 3 === 0).reverse(),
    );
  });
});
