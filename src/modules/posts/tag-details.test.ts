import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, statementsDuring } from '../../../test/helpers.ts';
import { createPost, createUser } from '../../../test/factories.ts';
import { patchTag, userAndModerator } from '../../../test/tag-helpers.ts';
import { TagCache } from '../tags/tag-cache.ts';
import { createPostsService } from './posts.service.ts';
import { READS_BEFORE_BUILD } from '../../core/rebuild-on-misses.ts';

/**
 * A post's detail takes its tags' categories and post counts from the tag list's cache when the
 * cache is at the data version the post was read at (tag-details.ts), and reads them with the
 * post otherwise: what it shows is the database's either way.
 */
eachDatabase("a post detail's tags from the tag cache", (ctx) => {
  const who = userAndModerator(ctx);

  test('kept at one version, the tags cost no statement; a category change and a new post show at once', async () => {
    const deps = ctx.app.deps;
    const service = createPostsService(deps, { tagCache: new TagCache() });
    const uploader = await createUser(ctx.database, { username: 'details_up' });
    const id = await createPost(ctx.database, { uploaderId: uploader, title: 'd', tags: ['kd_one', 'kd_two'], createdAt: ctx.clock.now() - 1000 });
    const details = async () => {
      const body = JSON.parse((await service.get(String(id), null, {})).toString());
      return body.tagDetails.map((t: { name: string; category: string; postsCount: number }) => `${t.name}:${t.category}:${t.postsCount}`);
    };
    const readAll = async (expected: string[], what: string) => {
      for (let i = 0; i <= READS_BEFORE_BUILD; i++) assert.deepEqual(await details(), expected, `${what}, read ${i}`);
      assert.equal(await statementsDuring(deps.db, details), 1, `${what}: the post's row alone`);
    };

    await readAll(['kd_one:general:1', 'kd_two:general:1'], 'as created');
    const changed = await patchTag(ctx, who.mod.headers, 'kd_one', { category: 'artist' });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.deepEqual(await details(), ['kd_one:artist:1', 'kd_two:general:1'], 'the first read after the change');
    await readAll(['kd_one:artist:1', 'kd_two:general:1'], 'after a category change');
    await createPost(ctx.database, { uploaderId: uploader, title: 'e', tags: ['kd_two'], createdAt: ctx.clock.now() });
    assert.deepEqual(await details(), ['kd_one:artist:1', 'kd_two:general:2'], 'the first read after an upload');
    await readAll(['kd_one:artist:1', 'kd_two:general:2'], 'after an upload');
  });
});
