import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { assertBadField } from '../../../test/auth-helpers.ts';
import * as fx from '../../../test/media-fixtures.ts';
import { multipart } from '../../../test/multipart.ts';
import { editTags, imply, postTags, uploadTagged, userAndModerator } from '../../../test/tag-helpers.ts';

const names = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}_${String(i).padStart(2, '0')}`);

async function tagCount(ctx: Ctx): Promise<number> {
  return Number(
    (
      await ctx.database
        .selectFrom('tags')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
}

eachDatabase('at most 64 tags a post, not counting the implied ones', (ctx) => {
  const who = userAndModerator(ctx);

  test('an upload or an edit with 65 tags of its own is a 400 naming tags, and leaves nothing behind', async () => {
    const before = await tagCount(ctx);
    const m = multipart({ tags: names('over', 65).join(',') }, [{ filename: 'a.png', data: await fx.png(9001, 32, 24) }]);
    const res = await ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...who.alice.headers } });
    assertBadField(res, 'tags');
    assert.match(res.json().error, /at most 64 tags per post, not counting tags that others imply \(got 65\)/);
    assert.equal(await tagCount(ctx), before, 'no tag was created');
    assert.equal((await getJson(ctx.app, '/api/posts?q=over_00')).body.totalPosts, 0);

    const id = await uploadTagged(ctx, who.alice, names('fits', 64).join(','));
    assertBadField(await editTags(ctx, who.alice, id, names('fits', 65)), 'tags');
    assert.equal((await postTags(ctx, id)).tags.length, 64);
  });

  test('implied tags do not count: 64 tags and what they imply are kept, and the post stays editable with its whole list', async () => {
    for (const [from, to] of [
      ['lim_00', 'lim_animal'],
      ['lim_animal', 'lim_living'],
    ]) {
      assert.equal((await imply(ctx, who.mod.headers, from, to)).statusCode, 201);
    }
    const id = await uploadTagged(ctx, who.alice, names('lim', 64).join(','));
    const tags = (await postTags(ctx, id)).tags;
    assert.equal(tags.length, 66);
    assert.ok(tags.includes('lim_animal') && tags.includes('lim_living'));
    // The web's tag editor sends the implied tags with the rest: 66 names, 64 of them the post's own.
    const edit = await editTags(ctx, who.alice, id, [...tags.filter((t) => t !== 'lim_63'), 'lim_new']);
    assert.equal(edit.statusCode, 200, edit.body);
    assert.equal((await postTags(ctx, id)).tags.length, 66);
    assertBadField(await editTags(ctx, who.alice, id, [...tags, 'lim_new']), 'tags');
  });

  test('a bulk edit adds at most 64 tags', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/posts/bulk-tags',
      headers: who.mod.headers,
      payload: { q: 'lim_00', add: names('bulk', 65) },
    });
    assertBadField(res, 'add');
  });
});
