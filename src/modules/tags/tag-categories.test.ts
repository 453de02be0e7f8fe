import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, getJson } from '../../../test/helpers.ts';
import { assertBadField } from '../../../test/auth-helpers.ts';
import { userAndModerator, editTags, patchTag, postTags, uploadTagged } from '../../../test/tag-helpers.ts';
import { splitCategory } from '../../core/tag-categories.ts';
import { parseTags } from './tag-name-rules.ts';

test('a category prefix is read in any case, long or short; any other colon stays in the name', () => {
  assert.deepEqual(splitCategory('artist:Someone'), { name: 'Someone', category: 'artist' });
  assert.deepEqual(splitCategory('ART:x'), { name: 'x', category: 'artist' });
  assert.deepEqual(splitCategory('Char:hero'), { name: 'hero', category: 'character' });
  assert.deepEqual(splitCategory('copy:series'), { name: 'series', category: 'copyright' });
  assert.deepEqual(splitCategory('gen:sky'), { name: 'sky', category: 'general' });
  assert.deepEqual(splitCategory('meta:highres'), { name: 'highres', category: 'meta' });
  assert.deepEqual(splitCategory('style:flat'), { name: 'style:flat' });
  assert.deepEqual(splitCategory('plain'), { name: 'plain' });
  const parsed = parseTags(['artist:A b', 'art:a_b', 'style:flat', 'artist:', 'char:meta:x']);
  assert.deepEqual(parsed.tags, ['a_b', 'style:flat']);
  assert.deepEqual([...parsed.categories], [['a_b', 'artist']]);
  assert.equal(parsed.errors.length, 2, parsed.errors.join('; '));
  assert.match(parsed.errors[0], /artist:.*no name/);
  assert.match(parsed.errors[1], /category prefix/);
});

eachDatabase({ title: 'tag categories', fleet: "a category changed on one instance shows in the others' tag caches and post details" }, (ctx) => {
  const who = userAndModerator(ctx);

  test('an upload creates prefixed tags in their category; the post detail lists tags with category and count', async () => {
    const id = await uploadTagged(ctx, who.alice, 'artist:Painter_One, CHAR:hero, copy:saga, meta:highres, sky, style:flat');
    const post = await postTags(ctx, id);
    assert.deepEqual(post.tags, ['hero', 'highres', 'painter_one', 'saga', 'sky', 'style:flat']);
    assert.deepEqual(post.tagDetails, [
      { name: 'hero', category: 'character', postsCount: 1 },
      { name: 'highres', category: 'meta', postsCount: 1 },
      { name: 'painter_one', category: 'artist', postsCount: 1 },
      { name: 'saga', category: 'copyright', postsCount: 1 },
      { name: 'sky', category: 'general', postsCount: 1 },
      { name: 'style:flat', category: 'general', postsCount: 1 },
    ]);
  });

  test('a category prefix in a search, on the Danbooru API and in a tag page means the tag after it', async () => {
    const id = await uploadTagged(ctx, who.alice, 'artist:Painter_Search, pond_view');
    await uploadTagged(ctx, who.alice, 'pond_view');
    const ours = async (q: string) =>
      ((await getJson(ctx.app, `/api/posts?q=${encodeURIComponent(q)}`, who.alice.headers)).body.posts as { id: string }[]).map((p) => p.id);
    assert.deepEqual(await ours('artist:painter_search'), [id]);
    assert.deepEqual(await ours('art:painter_search pond_view'), [id]);
    assert.equal((await ours('pond_view -artist:painter_search')).includes(id), false);
    const danbooru = await getJson(ctx.app, '/posts.json?tags=artist:painter_search');
    assert.equal(danbooru.status, 200, JSON.stringify(danbooru.body));
    assert.deepEqual(
      danbooru.body.map((p: { id: number }) => String(p.id)),
      [id],
    );
    const page = await getJson(ctx.app, '/api/tags/artist:painter_search');
    assert.equal(page.status, 200, JSON.stringify(page.body));
    assert.deepEqual([page.body.name, page.body.category], ['painter_search', 'artist']);
    assert.equal((await getJson(ctx.app, '/api/tags/artist:nobody_at_all')).status, 404);
  });

  test('a prefix on a tag that exists is ignored: only moderators recategorise', async () => {
    await uploadTagged(ctx, who.alice, 'lake');
    const id = await uploadTagged(ctx, who.alice, 'artist:lake');
    assert.deepEqual((await postTags(ctx, id)).tagDetails, [{ name: 'lake', category: 'general', postsCount: 2 }]);
    const res = await editTags(ctx, who.alice, id, ['char:lake', 'copy:new_saga']);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().tagDetails, [
      { name: 'lake', category: 'general', postsCount: 2 },
      { name: 'new_saga', category: 'copyright', postsCount: 1 },
    ]);
  });

  test('a prefix without a name, or two prefixes, is a 400 naming tags', async () => {
    const id = await uploadTagged(ctx, who.alice, 'pond');
    assertBadField(await editTags(ctx, who.alice, id, 'artist:'), 'tags');
    assertBadField(await editTags(ctx, who.alice, id, ['artist:char:x']), 'tags');
    assert.deepEqual((await postTags(ctx, id)).tags, ['pond']);
  });

  test('GET /api/tags gives each tag its category and filters by category=, on the cached path and with author', async () => {
    await uploadTagged(ctx, who.alice, 'artist:filter_artist, filter_general');
    for (const extra of ['', '&author=alice', '&timeRange=week', '&sortBy=alphabetical']) {
      const all = await getJson(ctx.app, `/api/tags?search=filter_${extra}`);
      assert.equal(all.status, 200, JSON.stringify(all.body));
      assert.deepEqual(
        all.body.tags.map((t: { name: string; category: string }) => [t.name, t.category]).sort(),
        [
          ['filter_artist', 'artist'],
          ['filter_general', 'general'],
        ],
        extra,
      );
      const artists = await getJson(ctx.app, `/api/tags?search=filter_&category=artist${extra}`);
      assert.deepEqual(
        artists.body.tags.map((t: { name: string }) => t.name),
        ['filter_artist'],
        extra,
      );
      assert.equal(artists.body.pagination.total, 1);
    }
    const bad = await getJson(ctx.app, '/api/tags?category=painter');
    assert.equal(bad.status, 400);
    assert.match(bad.body.error, /category/);
  });

  test('a moderator recategorises a tag: the list, its filter and post details show it at once', async () => {
    const id = await uploadTagged(ctx, who.alice, 'recat_me');
    assert.equal((await getJson(ctx.app, '/api/tags?category=character&search=recat_me')).body.pagination.total, 0);
    const res = await patchTag(ctx, who.mod.headers, 'recat_me', { category: 'character' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().category, 'character');
    const listed = await getJson(ctx.app, '/api/tags?category=character&search=recat_me');
    assert.deepEqual(
      listed.body.tags.map((t: { name: string; category: string }) => [t.name, t.category]),
      [['recat_me', 'character']],
    );
    assert.deepEqual((await postTags(ctx, id)).tagDetails, [{ name: 'recat_me', category: 'character', postsCount: 1 }]);
  });
});
