// Posts' source and parent: given at upload and edit, checked (a URL; an existing post, not the
// post itself, no cycle), shown on the post, in Danbooru's object, and after a parent's deletion.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { assertBadField, register, type Account } from '../../../test/auth-helpers.ts';
import { multipart } from '../../../test/multipart.ts';
import * as fx from '../../../test/media-fixtures.ts';

let seed = 900;

async function upload(ctx: Ctx, who: Account, fields: Record<string, string>) {
  const m = multipart(fields, [{ filename: 'a.png', data: await fx.png(seed++, 32, 24) }]);
  return ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...who.headers } });
}

async function uploaded(ctx: Ctx, who: Account, fields: Record<string, string> = {}): Promise<string> {
  const res = await upload(ctx, who, fields);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().post.id;
}

const patch = (ctx: Ctx, who: Account, id: string, payload: Record<string, unknown>) =>
  ctx.app.inject({ method: 'PATCH', url: `/api/posts/${id}`, headers: who.headers, payload });

async function post(ctx: Ctx, id: string) {
  const res = await getJson(ctx.app, `/api/posts/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { source: string | null; parentId: string | null; children: string[]; title: string };
}

async function postCount(ctx: Ctx): Promise<number> {
  return Number((await ctx.database.selectFrom('posts').select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow()).n);
}

eachDatabase('post source and parent', (ctx) => {
  let alice: Account;
  let bob: Account;
  before(async () => {
    alice = await register(ctx.app, 'alice');
    bob = await register(ctx.app, 'bob');
  });

  test('an upload takes a source and a parent; the post shows them, and the parent lists its children', async () => {
    const parent = await uploaded(ctx, alice);
    const plain = await post(ctx, parent);
    assert.equal(plain.source, null);
    assert.equal(plain.parentId, null);
    assert.deepEqual(plain.children, []);
    // Anyone's post may be a parent.
    const child = await uploaded(ctx, bob, { source: 'https://art.example/works/1?x=2', parentId: parent });
    const second = await uploaded(ctx, alice, { source: ' http://art.example/2 ', parentId: parent });
    const shown = await post(ctx, child);
    assert.equal(shown.source, 'https://art.example/works/1?x=2');
    assert.equal(shown.parentId, parent);
    assert.equal((await post(ctx, second)).source, 'http://art.example/2', 'trimmed');
    assert.deepEqual((await post(ctx, parent)).children, [child, second]);
    const bare = await post(ctx, await uploaded(ctx, alice, { source: '', parentId: '' }));
    assert.deepEqual([bare.source, bare.parentId], [null, null], 'empty fields are none');
  });

  test('an upload with a bad source or parent is a 400 naming the field, and writes no post', async () => {
    const before = await postCount(ctx);
    for (const source of ['ftp://files.example/a.png', 'not a url', 'javascript:alert(1)', `https://a.example/${'x'.repeat(1024)}`]) {
      assertBadField(await upload(ctx, alice, { source }), 'source');
    }
    for (const parentId of ['999999', 'abc', '-1']) assertBadField(await upload(ctx, alice, { parentId }), 'parentId');
    assert.equal(await postCount(ctx), before);
  });

  test('an edit sets and clears source and parent; a bad one is a 400 naming the field and changes nothing', async () => {
    const a = await uploaded(ctx, alice);
    const b = await uploaded(ctx, alice);
    const c = await uploaded(ctx, alice);
    let res = await patch(ctx, alice, b, { parentId: a, source: 'https://src.example/b' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().parentId, a);
    assert.equal(res.json().source, 'https://src.example/b');
    assert.equal((await patch(ctx, alice, c, { parentId: b })).statusCode, 200);
    assert.deepEqual((await post(ctx, a)).children, [b]);

    assertBadField(await patch(ctx, alice, a, { parentId: a }), 'parentId');
    const cycle = await patch(ctx, alice, a, { parentId: c, title: 'would be lost' });
    assertBadField(cycle, 'parentId');
    assert.match(cycle.json().error, /cycle/);
    assertBadField(await patch(ctx, alice, a, { parentId: b }), 'parentId');
    assertBadField(await patch(ctx, alice, a, { parentId: '99999999' }), 'parentId');
    assertBadField(await patch(ctx, alice, a, { parentId: 'x1' }), 'parentId');
    assertBadField(await patch(ctx, alice, a, { source: 'mailto:someone@example.com', title: 'would be lost' }), 'source');
    assertBadField(await patch(ctx, alice, a, { source: `https://a.example/${'y'.repeat(1020)}` }), 'source');
    const untouched = await post(ctx, a);
    assert.equal(untouched.parentId, null);
    assert.equal(untouched.source, null);
    assert.notEqual(untouched.title, 'would be lost');

    // Moving b under c's sibling is fine once c no longer descends from it.
    assert.equal((await patch(ctx, alice, c, { parentId: null })).statusCode, 200);
    assert.equal((await patch(ctx, alice, a, { parentId: c })).statusCode, 200);
    res = await patch(ctx, alice, b, { source: '', parentId: '' });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().source, null);
    assert.equal(res.json().parentId, null);
    assert.deepEqual((await post(ctx, a)).children, []);
  });

  test('deleting a parent leaves its children without one, each with a version naming the deleter', async () => {
    const parent = await uploaded(ctx, alice);
    const child = await uploaded(ctx, bob, { parentId: parent, source: 'https://keep.example/1' });
    ctx.clock.advance(60_000);
    const del = await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${parent}`, headers: alice.headers });
    assert.equal(del.statusCode, 200, del.body);
    const shown = await post(ctx, child);
    assert.equal(shown.parentId, null);
    assert.equal(shown.source, 'https://keep.example/1');
    const history = (await getJson(ctx.app, `/api/posts/${child}/history`)).body.versions;
    assert.deepEqual(
      history.map((v: { version: number; editor: string; parentId: string | null; createdAt: string }) => [v.version, v.editor, v.parentId, v.createdAt]),
      [
        [1, 'bob', parent, history[0].createdAt],
        [2, 'alice', null, new Date(ctx.clock.now()).toISOString()],
      ],
    );
  });

  test("Danbooru's post object carries source, parent_id and has_children", async () => {
    const parent = await uploaded(ctx, alice, { source: 'https://origin.example/p' });
    const child = await uploaded(ctx, alice, { parentId: parent });
    const get = async (id: string) => {
      const res = await ctx.app.inject({ url: `/posts/${id}.json`, headers: { host: 'board.example' } });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const p = await get(parent);
    assert.equal(p.source, 'https://origin.example/p');
    assert.equal(p.parent_id, null);
    assert.equal(p.has_children, true);
    const c = await get(child);
    assert.equal(c.source, '');
    assert.equal(c.parent_id, Number(parent));
    assert.equal(c.has_children, false);
    // Danbooru's parent:ID is the family: the parent and its children.
    const family = await ctx.app.inject({ url: `/posts.json?tags=parent:${parent}`, headers: { host: 'board.example' } });
    assert.deepEqual(
      family.json().map((x: { id: number }) => x.id),
      [Number(child), Number(parent)],
    );
  });
});
