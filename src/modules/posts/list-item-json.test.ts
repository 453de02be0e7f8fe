import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import { sql } from 'kysely';
import { eachDatabase, getJson } from '../../../test/helpers.ts';
import { addComment, createPost, createUser } from '../../../test/factories.ts';
import { memberHeaders, register } from '../../../test/auth-helpers.ts';
import { PostSearchList } from './posts.schemas.ts';
import { fillItems } from '../../db/schema/list-item.ts';
import { followsList, itemsByIds } from './posts.repo.ts';
import { testConfig } from '../../config.ts';

const URLS = testConfig();
import { counter } from '../../db/counters.ts';

/**
 * List items are JSON the database writes (db/schema/list-item.ts: stored on each row by triggers, around
 * counts read at request time). What it writes must be what
 * JSON.stringify would write from the stored row: the same keys, values and escapes, on both
 * engines, for titles, tags and names that need escaping and for every millisecond.
 */

const TITLES = ['Plain', 'Quote " and backslash \\ here', 'Tab\tnew\nline\u0001 and \u007f', 'Émoji 🦊 漢字', '</script><b>x</b>', "O'Brien's"];
const TAGS = ['with"quote', 'back\\slash', 'ünïcode', 'c++', 'a/b', "it's", '🦊'];
const TIMES = [
  Date.parse('2026-11-22T10:15:30.000Z'),
  Date.parse('2026-11-22T10:15:30.001Z'),
  Date.parse('2026-11-22T10:15:30.010Z'),
  Date.parse('2026-11-22T10:15:30.100Z'),
  Date.parse('2026-11-22T23:59:59.999Z'),
  Date.parse('2000-02-29T00:00:00.005Z'),
  Date.parse('1999-12-31T23:59:59.999Z'),
  Date.parse('2038-01-19T03:14:08.123Z'),
  Date.parse('2099-12-31T12:00:00.999Z'),
];

eachDatabase('list items written as JSON by the database', (ctx) => {
  const expected = new Map<string, object>();
  before(async () => {
    const u = await createUser(ctx.database, { username: 'Name.With-Odd_Chars' });
    // Random milliseconds too: every one must come out as toISOString writes it.
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const times = [...TIMES, ...Array.from({ length: 40 }, () => Date.parse('2001-01-01T00:00:00Z') + (random() % 1_000_000) * 1_000_003)];
    for (const [i, createdAt] of times.entries()) {
      const title = TITLES[i % TITLES.length];
      const tags = i % 4 === 3 ? [] : [TAGS[i % TAGS.length], TAGS[(i + 3) % TAGS.length], 'common'];
      const id = await createPost(ctx.database, {
        uploaderId: u,
        title,
        tags,
        createdAt,
        rating: i % 2 ? 'unsafe' : 'safe',
        width: 100 + i,
        height: 200 + i,
      });
      const row = await ctx.database.selectFrom('posts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expected.set(String(id), {
        id: String(id),
        title,
        thumbnail: `/media/${row.thumb_path}`,
        imageUrl: `/media/${row.file_path}`,
        likes: 0,
        comments: 0,
        favorites: 0,
        contentRating: row.content_rating,
        mediaType: 'image',
        width: 100 + i,
        height: 200 + i,
        author: { username: 'Name.With-Odd_Chars' },
        tags: [...new Set(tags)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
        createdAt: new Date(createdAt).toISOString(),
      });
    }
  });

  test('every item equals the stored row written by JSON.stringify, key for key', async () => {
    const res = await getJson(ctx.app, '/api/posts?limit=100&sortBy=oldest', await memberHeaders(ctx.app));
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^application\/json; charset=utf-8/);
    const body = res.body;
    assert.equal(body.posts.length, expected.size);
    for (const item of body.posts) {
      const want = expected.get(item.id);
      assert.ok(want, `unexpected post ${item.id}`);
      // Same keys in the same order as the schema (and so as the documentation) lists them.
      assert.equal(JSON.stringify(item), JSON.stringify(want));
    }
  });

  test('the response follows the PostSearchList schema exactly, with no key it does not list', async () => {
    const closed = (schema: any): any =>
      schema && typeof schema === 'object'
        ? Object.fromEntries(
            Object.entries({ ...schema, ...(schema.type === 'object' ? { additionalProperties: false } : {}) }).map(([k, v]) => [
              k,
              Array.isArray(v) ? v.map(closed) : closed(v),
            ]),
          )
        : schema;
    const validate = new Ajv({ strict: false }).compile(closed(PostSearchList));
    for (const url of [
      '/api/posts',
      '/api/posts?tag=common&limit=5',
      '/api/posts?search=quote',
      '/api/posts?offset=3&limit=2',
      '/api/posts?tag=nothing-like-it',
    ]) {
      const res = await getJson(ctx.app, url, await memberHeaders(ctx.app));
      assert.equal(res.status, 200, url);
      assert.ok(validate(res.body), `${url}: ${JSON.stringify(validate.errors)}`);
    }
  });

  test('a tag with a quote in its name finds its posts, written the same', async () => {
    const list = (await getJson(ctx.app, '/api/posts?tag=with%22quote&limit=100', await memberHeaders(ctx.app))).body;
    assert.ok(list.posts.length > 0);
    for (const item of list.posts) assert.equal(JSON.stringify(item), JSON.stringify(expected.get(item.id)));
  });
});

eachDatabase({ title: 'stored list items follow every change', fleet: "every instance's newest window and counts follow" }, (ctx) => {
  const item = async (id: string) => {
    const list = (await getJson(ctx.app, '/api/posts?limit=100', await memberHeaders(ctx.app))).body;
    return list.posts.find((p: { id: string }) => p.id === id);
  };

  test('an edit of title, rating or tags shows in the list at once, and so do likes, favorites and comments', async () => {
    const alice = await register(ctx.app, 'item_editor');
    const id = String(await createPost(ctx.database, { uploaderId: Number(alice.id), title: 'Before', tags: ['old_tag'], createdAt: ctx.clock.now() }));
    assert.equal((await item(id)).title, 'Before');
    // One field an edit: each must rewrite the stored item by itself.
    for (const payload of [{ title: 'After "quoted"' }, { contentRating: 'sketchy' }, { tags: ['new_b', 'new_a'] }]) {
      const res = await ctx.app.inject({ method: 'PATCH', url: `/api/posts/${id}`, headers: alice.headers, payload });
      assert.equal(res.statusCode, 200, res.body);
      const shown = await item(id);
      for (const [key, value] of Object.entries(payload)) assert.deepEqual(shown[key], Array.isArray(value) ? [...value].sort() : value, key);
    }
    for (const verb of ['like', 'favorite'] as const) {
      assert.equal((await ctx.app.inject({ method: 'PUT', url: `/api/posts/${id}/${verb}`, headers: alice.headers })).statusCode, 200);
    }
    await addComment(ctx.database, { postId: Number(id), userId: Number(alice.id), content: 'hi', createdAt: ctx.clock.now() });
    const after = await item(id);
    assert.equal(after.title, 'After "quoted"');
    assert.equal(after.contentRating, 'sketchy');
    assert.deepEqual(after.tags, ['new_a', 'new_b']);
    assert.deepEqual([after.likes, after.favorites, after.comments], [1, 1, 1]);
  });

  test('the migration fills the items of posts made before they were stored', async () => {
    const db = ctx.database;
    const u = await createUser(db, { username: 'Older_Poster' });
    const id = String(await createPost(db, { uploaderId: u, title: 'From before', tags: ['legacy'], createdAt: Date.parse('2020-05-06T07:08:09.010Z') }));
    const want = await item(id);
    // As a database made before the columns existed: empty until filled.
    await sql`UPDATE posts SET item_head = '', item_tail = ''`.execute(db);
    await fillItems(db, db.engine);
    assert.deepEqual(await item(id), want);
    assert.equal(want.createdAt, '2020-05-06T07:08:09.010Z');
    assert.deepEqual(want.author, { username: 'Older_Poster' });
  });
});

test('a list read back by the database is checked against the order asked for', () => {
  assert.ok(followsList([9, 3, 5], [9, 4, 3, 5]));
  assert.ok(followsList([], [1, 2]));
  assert.ok(!followsList([3, 9], [9, 3]), 'out of order: read again, sorted by position');
  assert.ok(!followsList([7], [9, 3]), 'a post not asked for');
});

eachDatabase('items of a list of posts', (ctx) => {
  test('come in the order asked for, with missing posts left out', async () => {
    const db = ctx.database;
    const u = await createUser(db, { username: 'orderly' });
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push(await createPost(db, { uploaderId: u, title: `n${i}`, tags: [], createdAt: ctx.clock.now() + i }));
    const asked = [ids[3], ids[0], 999_999, ids[5], ids[1], ids[4]];
    const items = await itemsByIds(db, asked, URLS);
    const want = asked.filter((id) => id !== 999_999);
    assert.deepEqual(items.ids, want);
    assert.deepEqual(
      JSON.parse(items.json).map((p: { id: string }) => Number(p.id)),
      want,
    );
    // The data version comes with the items, as of the same statement.
    assert.equal(items.version, await counter(db, 'version'));
    const none = await itemsByIds(db, [999_998], URLS);
    assert.deepEqual([none.ids, none.json], [[], '[]']);
    // A run of consecutive ids (a newest page) is read as one range: the same items, highest
    // first, a deleted one in it left out, with the version.
    const run = [ids[5], ids[4], ids[3], ids[2], ids[1]];
    assert.ok(
      run.every((id, i) => id === run[0] - i),
      'the fixture posts have consecutive ids',
    );
    const one = (id: number) => itemsByIds(db, [id], URLS);
    const each = await Promise.all(run.map(one));
    const whole = await itemsByIds(db, run, URLS);
    assert.deepEqual(whole.ids, run);
    assert.equal(whole.json, `[${each.map((x) => x.json.slice(1, -1)).join(',')}]`);
    assert.equal(whole.version, await counter(db, 'version'));
    await db.deleteFrom('posts').where('id', '=', ids[3]).execute();
    const gap = await itemsByIds(db, run, URLS);
    assert.deepEqual(gap.ids, [ids[5], ids[4], ids[2], ids[1]]);
    assert.deepEqual(
      JSON.parse(gap.json).map((p: { id: string }) => Number(p.id)),
      gap.ids,
    );
  });
});
