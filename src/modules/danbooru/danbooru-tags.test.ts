import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, type Ctx } from '../../../test/helpers.ts';
import { addAliasMoved, editTags, patchTag, uploadTagged, userAndModerator } from '../../../test/tag-helpers.ts';
import { assertDanbooruError, DANBOORU_TIME } from '../../../test/danbooru-helpers.ts';

const get = async (ctx: Ctx, url: string) => {
  const res = await ctx.app.inject({ url });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};
const names = async (ctx: Ctx, query: string) => (await get(ctx, `/tags.json?${query}`)).map((t: { name: string }) => t.name);

eachDatabase('danbooru API: tags and autocomplete', (ctx) => {
  const who = userAndModerator(ctx);
  before(async () => {
    const { alice, mod } = who;
    await uploadTagged(ctx, alice, 'cat_ears, blue_sky, jane_doe');
    await uploadTagged(ctx, alice, 'cat_ears, blue_sky');
    await uploadTagged(ctx, alice, 'cat_ears, catalogue');
    assert.equal((await patchTag(ctx, mod.headers, 'jane_doe', { category: 'artist' })).statusCode, 200);
    await addAliasMoved(ctx, mod.headers, 'nekomimi', 'cat_ears');
  });

  test("a tag has Danbooru's fields, its category as Danbooru's number", async () => {
    const [tag] = await get(ctx, '/tags.json?search[name]=jane_doe');
    assert.deepEqual(Object.keys(tag).sort(), ['category', 'created_at', 'id', 'is_deprecated', 'name', 'post_count', 'updated_at', 'words']);
    assert.equal(tag.name, 'jane_doe');
    assert.equal(tag.category, 1);
    assert.equal(tag.post_count, 1);
    assert.equal(tag.is_deprecated, false);
    assert.deepEqual(tag.words, ['jane', 'doe']);
    assert.equal(typeof tag.id, 'number');
    assert.match(tag.created_at, DANBOORU_TIME);
    assert.match(tag.updated_at, DANBOORU_TIME);
  });

  test('searches by name list, * pattern, category and order; an alias name finds its tag', async () => {
    assert.deepEqual(await names(ctx, 'search[name]=blue_sky,jane_doe&search[order]=name'), ['blue_sky', 'jane_doe']);
    assert.deepEqual(await names(ctx, 'search[name_matches]=cat*'), ['cat_ears', 'catalogue']);
    assert.deepEqual(await names(ctx, 'search[name_matches]=CAT'), [], 'no * means the whole name');
    assert.deepEqual(await names(ctx, 'search[name_matches]=*_sky'), ['blue_sky']);
    assert.deepEqual(await names(ctx, 'search[name]=nekomimi'), ['cat_ears']);
    assert.deepEqual(await names(ctx, 'search[name_matches]=neko*'), ['cat_ears']);
    assert.deepEqual(await names(ctx, 'search[category]=1'), ['jane_doe']);
    assert.deepEqual(await names(ctx, 'search[category]=0,1&search[order]=count&limit=2'), ['cat_ears', 'blue_sky']);
    assert.deepEqual(await names(ctx, 'search[order]=name&limit=2&page=2'), ['catalogue', 'jane_doe']);
    assert.equal((await names(ctx, 'limit=1000')).length, 4, 'a limit over 200 is clamped, not refused');
    assertDanbooruError(await ctx.app.inject({ url: '/tags.json?page=1001' }), 410, 'PaginationExtension::PaginationError');
  });

  test('hide_empty=false lists tags on no post', async () => {
    const post = await uploadTagged(ctx, who.alice, 'fleeting_tag');
    assert.equal((await editTags(ctx, who.alice, post, 'jane_doe')).statusCode, 200);
    assert.deepEqual(await names(ctx, 'search[name]=fleeting_tag'), []);
    const [tag] = await get(ctx, '/tags.json?search[name]=fleeting_tag&search[hide_empty]=false');
    assert.equal(tag.name, 'fleeting_tag');
    assert.equal(tag.post_count, 0);
  });

  test('autocomplete: most used first, aliases with their antecedent, - and ~ kept on the value', async () => {
    const items = await get(ctx, '/autocomplete.json?search[query]=ca&search[type]=tag_query&limit=10');
    assert.deepEqual(items, [
      { type: 'tag-word', label: 'cat ears', value: 'cat_ears', category: 0, post_count: 3, antecedent: null },
      { type: 'tag-word', label: 'catalogue', value: 'catalogue', category: 0, post_count: 1, antecedent: null },
    ]);
    const alias = await get(ctx, '/autocomplete.json?search[query]=neko&search[type]=tag_query');
    assert.deepEqual(
      alias.map((i: { value: string; antecedent: string | null }) => [i.value, i.antecedent]),
      [['cat_ears', 'nekomimi']],
    );
    const ops = await get(ctx, '/autocomplete.json?search[query]=-blue&search[type]=tag_query');
    assert.deepEqual(
      ops.map((i: { value: string }) => i.value),
      ['-blue_sky'],
    );
    assert.deepEqual(
      (await get(ctx, '/autocomplete.json?search[query]=~*sky')).map((i: { value: string }) => i.value),
      ['~blue_sky'],
    );
    assert.deepEqual(
      (await get(ctx, '/autocomplete.json?search[query]=*ear*&search[type]=tag_query&limit=20')).map((i: { value: string }) => i.value),
      ['cat_ears'],
      'LoliSnatcher asks with *x*: a substring',
    );
    assert.equal((await get(ctx, '/autocomplete.json?search[query]=c&limit=1')).length, 1);
    assert.deepEqual(await get(ctx, '/autocomplete.json?search[query]=ca&search[type]=user'), []);
    assert.deepEqual(await get(ctx, '/autocomplete.json?search[query]=zzz'), []);
  });
});
