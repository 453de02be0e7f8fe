import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, type Ctx } from '../../../test/helpers.ts';
import { addAliasMoved, imply, patchTag, unimply, uploadTagged, userAndModerator } from '../../../test/tag-helpers.ts';
import { assertDanbooruError, DANBOORU_TIME } from '../../../test/danbooru-helpers.ts';
import { danbooruTime } from './danbooru-time.ts';

const get = async (ctx: Ctx, url: string) => {
  const res = await ctx.app.inject({ url });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
};
type Relation = { id: number; antecedent_name: string; consequent_name: string };
const pairs = async (ctx: Ctx, url: string) => (await get(ctx, url)).map((r: Relation) => `${r.antecedent_name}>${r.consequent_name}`);
const titles = async (ctx: Ctx, query: string) => (await get(ctx, `/wiki_pages.json?${query}`)).map((p: { title: string }) => p.title);
const MINUTE = 60_000;
const RELATION_KEYS = [
  'antecedent_name',
  'approver_id',
  'consequent_name',
  'created_at',
  'creator_id',
  'forum_post_id',
  'forum_topic_id',
  'id',
  'reason',
  'status',
  'updated_at',
];

eachDatabase('danbooru API: tag aliases, implications and wiki pages', (ctx) => {
  const who = userAndModerator(ctx);
  const tagId = async (name: string) => (await ctx.database.selectFrom('tags').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
  before(async () => {
    const { alice, mod } = who;
    await uploadTagged(ctx, alice, 'cat_ears, blue_sky, cat, night_sky');
    // Made a minute apart, so newest first is an order of their times.
    for (const [from, to] of [
      ['nekomimi', 'cat_ears'],
      ['sky_blue', 'blue_sky'],
      ['kitty', 'cat'],
    ]) {
      await addAliasMoved(ctx, mod.headers, from, to);
      ctx.clock.advance(MINUTE);
    }
    for (const [from, to] of [
      ['cat_ears', 'animal_ears'],
      ['blue_sky', 'sky'],
      ['night_sky', 'sky'],
    ]) {
      assert.ok([201, 202].includes((await imply(ctx, mod.headers, from, to)).statusCode));
      ctx.clock.advance(MINUTE);
    }
    for (const [name, description] of [
      ['cat_ears', 'Ears of a cat, on someone who is not one.'],
      ['blue_sky', 'A clear sky in daylight.'],
      ['night_sky', 'The sky after dark.'],
    ]) {
      assert.equal((await patchTag(ctx, mod.headers, name, { description })).statusCode, 200);
    }
  });

  test("an alias has Danbooru's TagAlias fields, active and by its moderator", async () => {
    const [alias] = await get(ctx, '/tag_aliases.json?search[antecedent_name]=nekomimi');
    assert.deepEqual(Object.keys(alias).sort(), RELATION_KEYS);
    const modId = (await ctx.database.selectFrom('users').select('id').where('username', '=', 'mod').executeTakeFirstOrThrow()).id;
    assert.deepEqual(
      { ...alias, id: 0, created_at: '', updated_at: '' },
      {
        id: 0,
        antecedent_name: 'nekomimi',
        consequent_name: 'cat_ears',
        creator_id: modId,
        approver_id: modId,
        forum_topic_id: null,
        forum_post_id: null,
        status: 'active',
        reason: '',
        created_at: '',
        updated_at: '',
      },
    );
    assert.ok(Number.isSafeInteger(alias.id) && alias.id > 0);
    assert.equal(alias.created_at, '2026-06-15T12:00:00.000+00:00', 'the time the alias was made');
    assert.match(alias.updated_at, DANBOORU_TIME);
  });

  test('aliases: newest first, searched by either name, name_matches with *, and status', async () => {
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json'), ['kitty>cat', 'sky_blue>blue_sky', 'nekomimi>cat_ears']);
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?search[antecedent_name]=Kitty%20nekomimi'), ['kitty>cat', 'nekomimi>cat_ears']);
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?search[antecedent_name]=sky_blue,kitty'), ['kitty>cat', 'sky_blue>blue_sky']);
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?search[consequent_name]=blue_sky'), ['sky_blue>blue_sky']);
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?search[consequent_name]=nekomimi'), [], 'the names keep their sides');
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?search[name_matches]=cat*'), ['kitty>cat', 'nekomimi>cat_ears'], 'the consequent side');
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?search[name_matches]=*sky*'), ['sky_blue>blue_sky'], 'either side, once');
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?search[name_matches]=NEKO*'), ['nekomimi>cat_ears']);
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?search[name_matches]=neko'), [], 'without a * the whole name');
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?search[name_matches]=blue%20sky'), ['sky_blue>blue_sky'], 'spaces are underscores');
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?search[name_matches]=cat*&search[antecedent_name]=kitty'), ['kitty>cat'], 'all apply');
    assert.equal((await pairs(ctx, '/tag_aliases.json?search[status]=Active')).length, 3);
    assert.equal((await pairs(ctx, '/tag_aliases.json?search[status]=approved')).length, 3);
    for (const status of ['pending', 'deleted', 'retired', 'processing']) assert.deepEqual(await pairs(ctx, `/tag_aliases.json?search[status]=${status}`), []);
  });

  test('aliases page by number only; a page past 1000 is a 410 and a bad page or limit a 422', async () => {
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?limit=1'), ['kitty>cat']);
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?limit=1&page=2'), ['sky_blue>blue_sky']);
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?limit=2&page=2'), ['nekomimi>cat_ears']);
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?limit=2&page=3'), []);
    assertDanbooruError(await ctx.app.inject({ url: '/tag_aliases.json?page=1001' }), 410, 'PaginationExtension::PaginationError');
    const cursor = await ctx.app.inject({ url: '/tag_aliases.json?page=b999' });
    assertDanbooruError(cursor, 422, 'ArgumentError');
    assert.match(cursor.json().message, /paged by number/);
    assertDanbooruError(await ctx.app.inject({ url: '/tag_implications.json?page=a1' }), 422, 'ArgumentError');
    assertDanbooruError(await ctx.app.inject({ url: '/tag_aliases.json?page=x' }), 422, 'ArgumentError');
    assertDanbooruError(await ctx.app.inject({ url: '/tag_aliases.json?limit=-1' }), 422, 'ArgumentError');
    assertDanbooruError(await ctx.app.inject({ url: '/tag_aliases.json?limit=ten' }), 422, 'ArgumentError');
  });

  test('an implication has the same fields; newest first, searched the same way', async () => {
    const [one] = await get(ctx, '/tag_implications.json?search[antecedent_name]=cat_ears');
    assert.deepEqual(Object.keys(one).sort(), RELATION_KEYS);
    assert.equal(one.consequent_name, 'animal_ears');
    assert.equal(one.status, 'active');
    assert.equal(one.created_at, '2026-06-15T12:03:00.000+00:00');
    assert.ok(Number.isSafeInteger(one.id) && one.id > 0);
    assert.deepEqual(await pairs(ctx, '/tag_implications.json'), ['night_sky>sky', 'blue_sky>sky', 'cat_ears>animal_ears']);
    assert.deepEqual(await pairs(ctx, '/tag_implications.json?search[consequent_name]=sky'), ['night_sky>sky', 'blue_sky>sky']);
    assert.deepEqual(await pairs(ctx, '/tag_implications.json?search[name_matches]=*ears'), ['cat_ears>animal_ears']);
    assert.deepEqual(await pairs(ctx, '/tag_implications.json?search[name_matches]=sky'), ['night_sky>sky', 'blue_sky>sky']);
    assert.deepEqual(await pairs(ctx, '/tag_implications.json?limit=1&page=3'), ['cat_ears>animal_ears']);
    assert.deepEqual(await pairs(ctx, '/tag_implications.json?search[status]=deleted'), []);
    const aliasIds = (await get(ctx, '/tag_aliases.json')).map((r: Relation) => r.id);
    const ids = (await get(ctx, '/tag_implications.json')).map((r: Relation) => r.id);
    assert.equal(new Set([...aliasIds, ...ids]).size, 6, 'every relation its own id');
  });

  test('a removed alias or implication is no longer listed; the others keep their ids, and a renamed tag its aliases', async () => {
    const before = new Map<string, number>((await get(ctx, '/tag_aliases.json')).map((r: Relation) => [r.antecedent_name, r.id]));
    const res = await ctx.app.inject({ method: 'DELETE', url: '/api/tag-aliases/sky_blue', headers: who.mod.headers });
    assert.equal(res.statusCode, 200, res.body);
    const after = await get(ctx, '/tag_aliases.json');
    assert.deepEqual(
      after.map((r: Relation) => [r.antecedent_name, r.id]),
      [
        ['kitty', before.get('kitty')],
        ['nekomimi', before.get('nekomimi')],
      ],
    );
    assert.deepEqual(await get(ctx, '/tag_aliases.json?search[antecedent_name]=sky_blue'), []);

    // A rename leaves the old name as an alias of the tag; kitty follows the tag to its new name, with its id.
    assert.equal((await patchTag(ctx, who.mod.headers, 'cat', { name: 'feline' })).statusCode, 200);
    const [kitty] = await get(ctx, '/tag_aliases.json?search[antecedent_name]=kitty');
    assert.deepEqual([kitty.consequent_name, kitty.id], ['feline', before.get('kitty')]);
    assert.deepEqual(await pairs(ctx, '/tag_aliases.json?search[consequent_name]=feline'), ['cat>feline', 'kitty>feline']);

    const implied = await get(ctx, '/tag_implications.json');
    assert.equal((await unimply(ctx, who.mod.headers, 'blue_sky', 'sky')).statusCode, 200);
    assert.deepEqual(await pairs(ctx, '/tag_implications.json'), ['night_sky>sky', 'cat_ears>animal_ears']);
    assert.deepEqual(
      (await get(ctx, '/tag_implications.json')).map((r: Relation) => r.id),
      [implied[0].id, implied[2].id],
    );
  });

  test("a tag with a description is Danbooru's wiki page of it", async () => {
    const [page] = await get(ctx, '/wiki_pages.json?search[title]=cat_ears');
    assert.deepEqual(Object.keys(page).sort(), ['body', 'created_at', 'id', 'is_deleted', 'is_locked', 'other_names', 'title', 'updated_at']);
    assert.deepEqual(
      { ...page, created_at: '', updated_at: '' },
      {
        id: await tagId('cat_ears'),
        title: 'cat_ears',
        body: 'Ears of a cat, on someone who is not one.',
        other_names: [],
        is_deleted: false,
        is_locked: false,
        created_at: '',
        updated_at: '',
      },
    );
    assert.equal(page.created_at, '2026-06-15T12:00:00.000+00:00', 'the tag was made by the first upload');
    assert.equal(page.updated_at, '2026-06-15T12:06:00.000+00:00', 'its description was written six minutes later');
    assert.deepEqual(await get(ctx, '/wiki_pages/cat_ears.json'), page);
    assert.deepEqual(await get(ctx, `/wiki_pages/${page.id}.json`), page, 'all digits is an id');
    assert.equal((await get(ctx, '/wiki_pages/Blue%20Sky.json')).title, 'blue_sky');
    assertDanbooruError(await ctx.app.inject({ url: '/wiki_pages/sky.json' }), 404, 'ActiveRecord::RecordNotFound');
    assertDanbooruError(await ctx.app.inject({ url: '/wiki_pages/no_such_tag.json' }), 404, 'ActiveRecord::RecordNotFound');
    assertDanbooruError(await ctx.app.inject({ url: '/wiki_pages/99999999999999.json' }), 404, 'ActiveRecord::RecordNotFound');

    ctx.clock.advance(MINUTE);
    assert.equal((await patchTag(ctx, who.mod.headers, 'cat_ears', { description: 'Cat ears.' })).statusCode, 200);
    const edited = await get(ctx, '/wiki_pages/cat_ears.json');
    assert.deepEqual([edited.body, edited.updated_at, edited.created_at], ['Cat ears.', danbooruTime(ctx.clock.now()), page.created_at]);
  });

  test('wiki pages: only described tags, highest id first, by title, normalized title and id, paged by number or cursor', async () => {
    const described = [];
    for (const title of ['cat_ears', 'blue_sky', 'night_sky']) described.push({ id: await tagId(title), title });
    described.sort((a, b) => b.id - a.id);
    const byId = described.map((p) => p.title);
    const ids = described.map((p) => p.id);
    const idOf = (title: string) => ids[byId.indexOf(title)];
    assert.deepEqual(await titles(ctx, ''), byId, 'sky, animal_ears and the rest have no description');
    assert.deepEqual(
      await titles(ctx, 'search[title]=*_sky'),
      byId.filter((t) => t.endsWith('_sky')),
    );
    assert.deepEqual(await titles(ctx, 'search[title]=blue'), [], 'without a * the whole title');
    assert.deepEqual(await titles(ctx, 'search[title_normalize]=Night%20Sky'), ['night_sky']);
    assert.deepEqual(
      await titles(ctx, 'search[title_space]=night_sky%20cat_ears%20no_such_tag%20sky'),
      byId.filter((t) => t !== 'blue_sky'),
      'several exact titles at once, as the importer asks for its tags',
    );
    assert.deepEqual(
      await titles(ctx, `search[id]=${idOf('blue_sky')},${idOf('night_sky')},x`),
      byId.filter((t) => t !== 'cat_ears'),
    );
    assert.deepEqual(await titles(ctx, 'limit=1&page=2'), [byId[1]]);
    assert.deepEqual(await titles(ctx, `page=b${ids[0]}`), byId.slice(1));
    assert.deepEqual(await titles(ctx, `page=a${ids[2]}&limit=1`), [byId[1]], 'the nearest above, as Danbooru pages upwards');
    assert.deepEqual(await titles(ctx, `page=a${ids[2]}`), byId.slice(0, 2), 'highest first all the same');
    assert.deepEqual(await titles(ctx, 'page=a99999999999'), []);
    assertDanbooruError(await ctx.app.inject({ url: '/wiki_pages.json?page=1001' }), 410, 'PaginationExtension::PaginationError');
    assertDanbooruError(await ctx.app.inject({ url: '/wiki_pages.json?page=c1' }), 422, 'ArgumentError');
  });

  test('a title with dots and other marks is found whole, as Danbooru titles often have them', async () => {
    await uploadTagged(ctx, who.alice, 'mr._bean, k-on!');
    for (const name of ['mr._bean', 'k-on!']) assert.equal((await patchTag(ctx, who.mod.headers, name, { description: 'Seen.' })).statusCode, 200);
    assert.equal((await get(ctx, '/wiki_pages/mr._bean.json')).title, 'mr._bean');
    assert.equal((await get(ctx, `/wiki_pages/${encodeURIComponent('k-on!')}.json`)).title, 'k-on!');
  });

  test('the three are in the OpenAPI document, tagged danbooru, with their search parameters', async () => {
    const doc = await get(ctx, '/api/openapi.json');
    const params = (path: string) => doc.paths[path].get.parameters.map((p: { name: string }) => p.name);
    for (const path of ['/tag_aliases.json', '/tag_implications.json', '/wiki_pages.json', '/wiki_pages/{title}.json']) {
      assert.ok(doc.paths[path]?.get?.tags.includes('danbooru'), path);
    }
    for (const name of ['search[antecedent_name]', 'search[consequent_name]', 'search[name_matches]', 'search[status]', 'limit', 'page']) {
      assert.ok(params('/tag_aliases.json').includes(name), name);
      assert.ok(params('/tag_implications.json').includes(name), name);
    }
    for (const name of ['search[title]', 'search[title_normalize]', 'limit', 'page']) assert.ok(params('/wiki_pages.json').includes(name), name);
    assert.match(doc.paths['/tag_aliases.json'].get.responses['200'].content['application/json'].schema.items.properties.id.description, /SHA-256/);
  });

  test('a page holds up to 1000 relations, not 200 as /posts.json does', async () => {
    const target = await tagId('blue_sky');
    const rows = Array.from({ length: 1005 }, (_, i) => ({
      from_name: `bulk_${String(i).padStart(4, '0')}`,
      tag_id: target,
      creator_id: null,
      created_at: ctx.clock.now() + i,
    }));
    for (let i = 0; i < rows.length; i += 250)
      await ctx.database
        .insertInto('tag_aliases')
        .values(rows.slice(i, i + 250))
        .execute();
    const bulk = 'search[name_matches]=bulk_*';
    assert.equal((await get(ctx, `/tag_aliases.json?${bulk}`)).length, 20, 'twenty by default');
    assert.equal((await get(ctx, `/tag_aliases.json?${bulk}&limit=300`)).length, 300);
    assert.equal((await get(ctx, `/tag_aliases.json?${bulk}&limit=5000`)).length, 1000, 'more than 1000 is taken as 1000');
    assert.deepEqual(await pairs(ctx, `/tag_aliases.json?${bulk}&limit=1000&page=2`), [
      'bulk_0004>blue_sky',
      'bulk_0003>blue_sky',
      'bulk_0002>blue_sky',
      'bulk_0001>blue_sky',
      'bulk_0000>blue_sky',
    ]);
    const [first] = await get(ctx, '/tag_aliases.json?search[antecedent_name]=bulk_0000');
    assert.equal(first.creator_id, null, 'a creator whose account is gone');
    assert.equal(first.approver_id, null);
  });
});

eachDatabase(
  'danbooru API: tag relations, rate limits',
  (ctx) => {
    test("Danbooru's tag aliases count in the same window as GET /api/tag-aliases; wiki pages are limited too, with Danbooru's 429", async () => {
      const first = await ctx.app.inject({ url: '/tag_aliases.json' });
      assert.equal(first.statusCode, 200);
      assert.equal(first.headers['x-ratelimit-limit'], '50');
      const ours = await ctx.app.inject({ url: '/api/tag-aliases' });
      assert.equal(Number(ours.headers['x-ratelimit-remaining']), Number(first.headers['x-ratelimit-remaining']) - 1, 'one budget for both');
      let last = first;
      for (let i = 0; i < 60 && last.statusCode !== 429; i++) last = await ctx.app.inject({ url: '/wiki_pages.json' });
      assertDanbooruError(last, 429, 'RateLimiter::RateLimitError');
    });
  },
  { rateLimits: true },
);
