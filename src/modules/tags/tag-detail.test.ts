import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, getJson } from '../../../test/helpers.ts';
import { assertBadField, assertError, ISO_MS } from '../../../test/auth-helpers.ts';
import { userAndModerator, addAlias, listed, patchTag, postTags, tagObject, uploadTagged } from '../../../test/tag-helpers.ts';

eachDatabase({ title: 'GET and PATCH /api/tags/<name>', fleet: "a rename is followed by every instance's lists, searches and tag cache" }, (ctx) => {
  const who = userAndModerator(ctx);

  test('the tag object: category, count, description, aliases, implications, createdAt; an alias name answers its target', async () => {
    await uploadTagged(ctx, who.alice, 'char:detail_hero');
    await uploadTagged(ctx, who.alice, 'detail_hero');
    assert.equal((await addAlias(ctx, who.mod.headers, 'detail_alias', 'detail_hero')).statusCode, 201);
    const tag = await tagObject(ctx, 'detail_hero');
    assert.match(tag.createdAt, ISO_MS);
    assert.deepEqual(
      { ...tag, createdAt: 'x' },
      { name: 'detail_hero', category: 'character', postsCount: 2, description: '', aliases: ['detail_alias'], implies: [], impliedBy: [], createdAt: 'x' },
    );
    assert.deepEqual(await tagObject(ctx, 'detail_alias'), tag);
    assert.deepEqual(await tagObject(ctx, 'Detail_Hero'), tag, 'names are read as tags are written');
    assertError(await ctx.app.inject({ method: 'GET', url: '/api/tags/no_such_tag' }), 404);
  });

  test('PATCH is for moderators: 401 anonymous, 403 a user, nothing changed', async () => {
    await uploadTagged(ctx, who.alice, 'guarded');
    assertError(await patchTag(ctx, {}, 'guarded', { category: 'meta' }), 401);
    assertError(await patchTag(ctx, who.alice.headers, 'guarded', { category: 'meta' }), 403);
    assert.equal((await tagObject(ctx, 'guarded')).category, 'general');
    assertError(await patchTag(ctx, who.mod.headers, 'not_a_tag', { category: 'meta' }), 404);
  });

  test('a moderator sets category and description; bad values are 400 naming the field', async () => {
    await uploadTagged(ctx, who.alice, 'described');
    const res = await patchTag(ctx, who.mod.headers, 'described', { category: 'copyright', description: 'A series.\nSecond line <b>kept as text</b>' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().description, 'A series.\nSecond line <b>kept as text</b>');
    assert.deepEqual(await tagObject(ctx, 'described'), res.json());
    assertBadField(await patchTag(ctx, who.mod.headers, 'described', { description: 'x'.repeat(10_001) }), 'description');
    assertBadField(await patchTag(ctx, who.mod.headers, 'described', { category: 'painter' }), 'category');
    assertBadField(await patchTag(ctx, who.mod.headers, 'described', { colour: 'red' }), 'colour');
    assert.equal((await patchTag(ctx, who.mod.headers, 'described', { description: 'y'.repeat(10_000) })).statusCode, 200);
  });

  test('a rename keeps the posts and leaves the old name as an alias: posts, lists and searches follow', async () => {
    const a = await uploadTagged(ctx, who.alice, 'old_name, other');
    const b = await uploadTagged(ctx, who.alice, 'old_name');
    const res = await patchTag(ctx, who.mod.headers, 'old_name', { name: 'New Name' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().name, 'new_name');
    assert.deepEqual(res.json().aliases, ['old_name']);
    assert.equal(res.json().postsCount, 2);
    assert.deepEqual((await postTags(ctx, a)).tags, ['new_name', 'other']);
    for (const query of ['q=new_name', 'q=old_name', 'tag=old_name', 'search=old_name', 'tag=new_name']) {
      assert.deepEqual(await listed(ctx, query), { ids: [b, a], total: 2 }, query);
    }
    const tags = await getJson(ctx.app, '/api/tags?search=_name');
    assert.deepEqual(
      tags.body.tags.map((t: { name: string; postsCount: number }) => [t.name, t.postsCount]),
      [['new_name', 2]],
    );
    // Tagging with the old name gives the renamed tag.
    const c = await uploadTagged(ctx, who.alice, 'old_name');
    assert.deepEqual((await postTags(ctx, c)).tags, ['new_name']);
  });

  test('a rename onto a tag or an alias, or to a bad name, is a 400 naming name', async () => {
    await uploadTagged(ctx, who.alice, 'rename_a, rename_b');
    assert.equal((await addAlias(ctx, who.mod.headers, 'rename_c', 'rename_b')).statusCode, 201);
    assertBadField(await patchTag(ctx, who.mod.headers, 'rename_a', { name: 'rename_b' }), 'name');
    assertBadField(await patchTag(ctx, who.mod.headers, 'rename_a', { name: 'rename_c' }), 'name');
    assertBadField(await patchTag(ctx, who.mod.headers, 'rename_a', { name: '-bad' }), 'name');
    assertBadField(await patchTag(ctx, who.mod.headers, 'rename_a', { name: 'artist:someone' }), 'name');
    assert.equal((await tagObject(ctx, 'rename_a')).name, 'rename_a');
  });
});
