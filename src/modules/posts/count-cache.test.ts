import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { eachDatabase, getJson } from '../../../test/helpers.ts';
import { createPost, createUser } from '../../../test/factories.ts';
import { CountCache } from './count-cache.ts';
import { deletePostRows } from './posts.delete.ts';
import { editPost } from './posts.edit.ts';
import type { PostFilter } from './posts.query.ts';

const HOUR = 3_600_000;
const twoTags: PostFilter = {
  tags: [
    { id: 1, name: 'a', count: 10 },
    { id: 2, name: 'b', count: 20 },
  ],
  terms: [],
};

eachDatabase('totals kept until the posts change', (ctx) => {
  let u: number;
  before(async () => {
    u = await createUser(ctx.database, { username: 'counter' });
    for (let i = 0; i < 30; i++) {
      const tags = [...(i % 2 === 0 ? ['even'] : []), ...(i % 3 === 0 ? ['third'] : [])];
      await createPost(ctx.database, {
        uploaderId: u,
        title: i % 5 === 0 ? `Lantern ${i}` : `Plain ${i}`,
        tags,
        createdAt: ctx.clock.now() - (30 - i) * HOUR,
      });
    }
  });

  const bump = () => ctx.database.updateTable('counters').set({ value: sql`value + 1` }).where('name', '=', 'version').execute();

  test('a kept total comes back until the data version moves; a total worked out before newer data was seen is not kept', async () => {
    const cache = new CountCache();
    const key = CountCache.key(twoTags)!;
    const first = await cache.lookup(ctx.database, key);
    assert.equal(first.count, undefined);
    first.keep({ total: 7, estimated: false });
    assert.deepEqual((await cache.lookup(ctx.database, key)).count, { total: 7, estimated: false });
    await bump();
    const after = await cache.lookup(ctx.database, key);
    assert.equal(after.count, undefined, 'another worker wrote: the total is gone');
    // A slow request that read the old version finishes now: its total must not be kept.
    first.keep({ total: 7, estimated: false });
    assert.equal((await cache.lookup(ctx.database, key)).count, undefined);
  });

  test('keys: the tags in any order are one key; likes, stored counts and other filters are not kept alike', () => {
    const swapped = { ...twoTags, tags: [...twoTags.tags].reverse() };
    assert.equal(CountCache.key(swapped), CountCache.key(twoTags));
    assert.notEqual(CountCache.key({ ...twoTags, rating: 'safe' }), CountCache.key(twoTags));
    assert.equal(CountCache.key({ ...twoTags, minLikes: 3 }), null, 'likes do not move the version');
    assert.equal(CountCache.key({ tags: [twoTags.tags[0]], terms: [] }), null, 'one tag has its stored count');
    assert.equal(CountCache.key({ tags: [], terms: [], rating: 'unsafe' }), null);
    assert.equal(CountCache.key({ tags: [], terms: [], from: 1, to: 2 }), null);
  });

  test('at most `max` totals, the least recently used dropped first', async () => {
    const cache = new CountCache(2);
    const keys = ['x', 'y', 'z'];
    for (const k of keys.slice(0, 2)) (await cache.lookup(ctx.database, k)).keep({ total: k.charCodeAt(0), estimated: false });
    await cache.lookup(ctx.database, 'x'); // x is now the most recently used
    (await cache.lookup(ctx.database, 'z')).keep({ total: 1, estimated: false });
    assert.ok((await cache.lookup(ctx.database, 'x')).count);
    assert.equal((await cache.lookup(ctx.database, 'y')).count, undefined);
    assert.ok((await cache.lookup(ctx.database, 'z')).count);
  });

  test('through the API, totals follow uploads, edits and deletes made by anyone', async () => {
    const total = async (url: string) => (await getJson(ctx.app, url)).body.totalPosts as number;
    const pair = '/api/posts?tag=even&tag=third';
    const word = '/api/posts?search=lantern';
    assert.equal(await total(pair), 5);
    assert.equal(await total(pair), 5, 'asked again: the same');
    assert.equal(await total(word), 6);
    // Written straight to the database, as another worker would.
    const added = await createPost(ctx.database, { uploaderId: u, title: 'Lantern new', tags: ['even', 'third'], createdAt: ctx.clock.now() });
    assert.equal(await total(pair), 6);
    assert.equal(await total(word), 7);
    const owner = { id: u, username: 'counter', role: 'user' as const, tier: 'free' as const };
    await editPost(ctx.app.deps, owner, String(added), { title: 'Plain now', tags: ['even'] });
    assert.equal(await total(word), 6, 'a title edit moves the total');
    assert.equal(await total(pair), 5, 'a tag edit moves the total');
    await editPost(ctx.app.deps, owner, String(added), { tags: ['even', 'third'] });
    assert.equal(await total(pair), 6);
    await deletePostRows(ctx.database, added);
    assert.equal(await total(pair), 5, 'a delete moves the total');
  });
});
