import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase } from '../../../test/helpers.ts';
import { createPost, createUser } from '../../../test/factories.ts';
import { listTags } from './tags.service.ts';
import { TagCache } from './tag-cache.ts';
import { TAG_SORTS, TIME_RANGES } from './tags.schemas.ts';

const DAY = 86_400_000;

eachDatabase('tag list from memory matches the database', (ctx) => {
  before(async () => {
    const db = ctx.database;
    const u = await createUser(db, { username: 'tagger' });
    const names = ['sky', 'skyline', 'blue_sky', 'sea', 'seashell', 'cat', 'catalog', 'kite', 'ask', 'misc', 'café', 'naïve', '日本語', 'sky_sky'];
    for (let i = 0; i < 40; i++) {
      const tags = names.filter((_, j) => (i * (j + 3)) % (j + 2) === 0);
      await createPost(db, { uploaderId: u, title: `p${i}`, tags, createdAt: ctx.clock.now() - ((i * 37) % 400) * DAY });
    }
  });

  test('every sort, time range and search gives the same tags, counts and order from memory as from SQL', async () => {
    const cache = new TagCache();
    for (const sortBy of TAG_SORTS) {
      for (const timeRange of TIME_RANGES) {
        // 1, 2, 3 and more characters; across two names; non-ASCII; none; upper case.
        for (const search of [undefined, 's', 'sky', 'sea', 'at', 'kyl', 'ashell', 'y\nb', 'ky_b', 'é', 'afé', '本語', 'zzz', 'SKY']) {
          for (const [page, limit] of [
            [1, 50],
            [2, 3],
            [3, 2],
            [40, 5],
          ]) {
            const q = { sortBy, timeRange, search, page, limit };
            const fromSql = await listTags(ctx.app.deps, q);
            const fromMemory = await listTags(ctx.app.deps, q, cache);
            assert.deepEqual(fromMemory, fromSql, JSON.stringify(q));
          }
        }
      }
    }
  });

  test('a new post is seen at once: the cache follows the data version', async () => {
    const cache = new TagCache();
    const before = await listTags(ctx.app.deps, { search: 'kite' }, cache);
    const u = await createUser(ctx.database, { username: 'kiter' });
    await createPost(ctx.database, { uploaderId: u, title: 'new', tags: ['kite', 'brand_new'], createdAt: ctx.clock.now() });
    const after = await listTags(ctx.app.deps, { search: 'kite' }, cache);
    assert.equal(after.tags[0].postsCount, (before.tags[0]?.postsCount ?? 0) + 1);
    assert.equal((await listTags(ctx.app.deps, { search: 'brand_new' }, cache)).tags.length, 1);
  });
  test('as time passes, windows rolled forward in memory keep matching SQL', async () => {
    const cache = new TagCache();
    const compare = async (when: string) => {
      for (const sortBy of ['trending', 'most_used'] as const) {
        for (const timeRange of TIME_RANGES) {
          const q = { sortBy, timeRange, page: 1, limit: 50 };
          assert.deepEqual(await listTags(ctx.app.deps, q, cache), await listTags(ctx.app.deps, q), `${when} ${JSON.stringify(q)}`);
        }
      }
    };
    await compare('at first');
    // Posts are whole days apart: 7 h, 30 h and 3 days each move some out of the windows.
    for (const hours of [7, 30, 72]) {
      ctx.clock.advance(hours * 3_600_000);
      await compare(`${hours} h later`);
    }
  });
});
