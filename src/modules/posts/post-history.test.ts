// A post's history (GET /api/posts/<id>/history) and revert (POST /api/posts/<id>/revert): what
// makes a version, who may revert, and that a revert is an edit (tag counts, search, a version).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { assertBadField, assertError, register, setAccount, type Account } from '../../../test/auth-helpers.ts';
import { addAliasMoved, imply, listed, patchTag, tagObject, uploadTagged } from '../../../test/tag-helpers.ts';
import { jobDone } from '../../../test/jobs.ts';

type Version = {
  version: number;
  editor: string | null;
  createdAt: string;
  title: string;
  tags: string[];
  contentRating: string;
  source: string | null;
  parentId: string | null;
};

const patch = (ctx: Ctx, who: Account, id: string, payload: Record<string, unknown>) =>
  ctx.app.inject({ method: 'PATCH', url: `/api/posts/${id}`, headers: who.headers, payload });
const revert = (ctx: Ctx, headers: Record<string, string>, id: string, version: unknown) =>
  ctx.app.inject({ method: 'POST', url: `/api/posts/${id}/revert`, headers, payload: { version } });

async function history(ctx: Ctx, id: string): Promise<Version[]> {
  const res = await getJson(ctx.app, `/api/posts/${id}/history`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.versions;
}

const at = (ctx: Ctx) => new Date(ctx.clock.now()).toISOString();

eachDatabase('post history and revert', (ctx) => {
  let alice: Account;
  let bob: Account;
  let mod: Account;
  let admin: Account;
  before(async () => {
    alice = await register(ctx.app, 'alice');
    bob = await register(ctx.app, 'bob');
    mod = await register(ctx.app, 'mod');
    admin = await register(ctx.app, 'admin');
    await setAccount(ctx.database, 'mod', { role: 'moderator' });
    await setAccount(ctx.database, 'admin', { role: 'admin' });
  });

  test('version 1 is the post as uploaded; each change of title, tags, rating, source or parent adds one with its editor and time', async () => {
    const uploadedAt = at(ctx);
    const id = await uploadTagged(ctx, alice, 'h_one, h_two');
    const first = await history(ctx, id);
    assert.equal(first.length, 1);
    assert.deepEqual(first[0], {
      version: 1,
      editor: 'alice',
      createdAt: uploadedAt,
      title: 'a',
      tags: ['h_one', 'h_two'],
      contentRating: 'safe',
      source: null,
      parentId: null,
    });
    const parent = await uploadTagged(ctx, bob, 'h_parent');

    ctx.clock.advance(1000);
    assert.equal((await patch(ctx, alice, id, { title: 'Renamed', tags: ['h_one'] })).statusCode, 200);
    ctx.clock.advance(1000);
    assert.equal((await patch(ctx, alice, id, { content: 'only the description' })).statusCode, 200);
    assert.equal((await patch(ctx, alice, id, { title: 'Renamed', tags: 'h_one' })).statusCode, 200, 'the same values again');
    const modAt = at(ctx);
    assert.equal((await patch(ctx, mod, id, { contentRating: 'sketchy', source: 'https://h.example/1', parentId: parent })).statusCode, 200);

    const versions = await history(ctx, id);
    assert.deepEqual(
      versions.map((v) => [v.version, v.editor, v.title, v.tags, v.contentRating, v.source, v.parentId]),
      [
        [1, 'alice', 'a', ['h_one', 'h_two'], 'safe', null, null],
        [2, 'alice', 'Renamed', ['h_one'], 'safe', null, null],
        [3, 'mod', 'Renamed', ['h_one'], 'sketchy', 'https://h.example/1', parent],
      ],
      'a change of content alone, or no change, is no version',
    );
    assert.equal(versions[2].createdAt, modAt);
  });

  test('a revert writes a new version equal to the one asked for, through the edit path (tag counts and search follow)', async () => {
    const id = await uploadTagged(ctx, alice, 'r_old, r_kept');
    assert.equal(
      (await patch(ctx, alice, id, { title: 'Second', tags: ['r_kept', 'r_new'], contentRating: 'unsafe', source: 'https://r.example' })).statusCode,
      200,
    );
    assert.equal((await tagObject(ctx, 'r_old')).postsCount, 0);
    assert.deepEqual(await listed(ctx, 'q=r_new'), { ids: [id], total: 1 });

    ctx.clock.advance(5000);
    const res = await revert(ctx, bob.headers, id, 1);
    assertError(res, 403);
    const ok = await revert(ctx, alice.headers, id, 1);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual([ok.json().title, ok.json().tags, ok.json().contentRating, ok.json().source], ['a', ['r_kept', 'r_old'], 'safe', null]);
    assert.equal((await tagObject(ctx, 'r_old')).postsCount, 1);
    assert.equal((await tagObject(ctx, 'r_new')).postsCount, 0);
    assert.deepEqual(await listed(ctx, 'q=r_old'), { ids: [id], total: 1 });
    assert.deepEqual(await listed(ctx, 'q=r_new'), { ids: [], total: 0 });

    const versions = await history(ctx, id);
    assert.equal(versions.length, 3);
    const { version: _v1, editor: _e1, createdAt: _c1, ...one } = versions[0];
    const { version, editor, createdAt, ...three } = versions[2];
    assert.deepEqual([version, editor, createdAt], [3, 'alice', at(ctx)]);
    assert.deepEqual(three, one);

    // Reverting to what the post already is changes nothing and adds no version.
    assert.equal((await revert(ctx, alice.headers, id, 3)).statusCode, 200);
    assert.equal((await history(ctx, id)).length, 3);
  });

  test('a revert to a version the post lacks is a 400 naming version; a post that does not exist is a 404', async () => {
    const id = await uploadTagged(ctx, alice, 'v_tag');
    assertBadField(await revert(ctx, alice.headers, id, 2), 'version');
    assertBadField(await revert(ctx, alice.headers, id, 0), 'version');
    assertBadField(await revert(ctx, alice.headers, id, 'one'), 'version');
    assertError(await revert(ctx, alice.headers, '99999999', 1), 404);
    assertError(await ctx.app.inject({ method: 'GET', url: '/api/posts/99999999/history' }), 404);
    assert.equal((await history(ctx, id)).length, 1, 'nothing was written');
  });

  test('a revert to a version whose parent was deleted since drops the parent', async () => {
    const parent = await uploadTagged(ctx, alice, 'p_gone');
    const other = await uploadTagged(ctx, alice, 'p_other');
    const child = await uploadTagged(ctx, alice, 'p_child');
    assert.equal((await patch(ctx, alice, child, { parentId: parent, title: 'with parent' })).statusCode, 200);
    assert.equal((await patch(ctx, alice, child, { parentId: other })).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${parent}`, headers: alice.headers })).statusCode, 200);
    const res = await revert(ctx, alice.headers, child, 2);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().parentId, null);
    assert.equal(res.json().title, 'with parent');
    assert.equal((await history(ctx, child)).at(-1)?.parentId, null);
  });

  test('a revert to a parent that has become a descendant of the post is a 400 naming parentId, and changes nothing', async () => {
    const a = await uploadTagged(ctx, alice, 'c_a');
    const b = await uploadTagged(ctx, alice, 'c_b');
    assert.equal((await patch(ctx, alice, a, { parentId: b })).statusCode, 200);
    assert.equal((await patch(ctx, alice, a, { parentId: null, title: 'a free' })).statusCode, 200);
    assert.equal((await patch(ctx, alice, b, { parentId: a })).statusCode, 200);
    const res = await revert(ctx, alice.headers, a, 2);
    assertBadField(res, 'parentId');
    const now = (await getJson(ctx.app, `/api/posts/${a}`)).body;
    assert.deepEqual([now.title, now.parentId], ['a free', null]);
    assert.equal((await history(ctx, a)).length, 3);
  });

  test('who may do what: anyone reads a history; the uploader, a moderator and an admin revert; others may not', async () => {
    const id = await uploadTagged(ctx, alice, 'w_tag');
    assert.equal((await patch(ctx, alice, id, { title: 'w two' })).statusCode, 200);
    assert.equal((await getJson(ctx.app, `/api/posts/${id}/history`)).status, 200, 'anonymous reads it');
    assertError(await revert(ctx, {}, id, 1), 401);
    assertError(await ctx.app.inject({ method: 'PATCH', url: `/api/posts/${id}`, payload: { source: 'https://x.example' } }), 401);
    assertError(await revert(ctx, bob.headers, id, 1), 403);
    assertError(await patch(ctx, bob, id, { parentId: null }), 403);
    assertError(await patch(ctx, bob, id, { source: 'https://x.example' }), 403);
    for (const [who, version, title] of [
      [alice, 1, 'a'],
      [mod, 2, 'w two'],
      [admin, 1, 'a'],
    ] as const) {
      const res = await revert(ctx, who.headers, id, version);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().title, title);
    }
    const editors = (await history(ctx, id)).map((v) => v.editor);
    assert.deepEqual(editors, ['alice', 'alice', 'alice', 'mod', 'admin']);
  });

  test("the system's tag changes are versions without an editor: an implication's backfill", async () => {
    const id = await uploadTagged(ctx, alice, 's_cat');
    // A tag with posts: its backfill is a job (202).
    const res = await imply(ctx, mod.headers, 's_cat', 's_animal');
    assert.equal(res.statusCode, 202, res.body);
    await jobDone(ctx.app, res.json().job.id, mod.headers);
    const versions = await history(ctx, id);
    assert.deepEqual(
      versions.map((v) => [v.version, v.editor, v.tags]),
      [
        [1, 'alice', ['s_cat']],
        [2, null, ['s_animal', 's_cat']],
      ],
    );
    // Reverting past it keeps the implied tag: the implication adds it back.
    const back = await revert(ctx, alice.headers, id, 1);
    assert.equal(back.statusCode, 200, back.body);
    assert.deepEqual(back.json().tags, ['s_animal', 's_cat']);
  });

  test("a moderator's bulk edit names the moderator; an alias moving its posts is the system's; a tag rename is no version", async () => {
    const id = await uploadTagged(ctx, alice, 'b_old, b_keep');
    const bulk = await ctx.app.inject({
      method: 'POST',
      url: '/api/posts/bulk-tags',
      headers: mod.headers,
      payload: { q: 'b_keep', add: ['b_new'], remove: ['b_old'] },
    });
    assert.equal(bulk.statusCode, 202, bulk.body);
    await jobDone(ctx.app, bulk.json().job.id, mod.headers);
    await addAliasMoved(ctx, mod.headers, 'b_new', 'b_target');
    const renamed = await patchTag(ctx, mod.headers, 'b_keep', { name: 'b_kept' });
    assert.equal(renamed.statusCode, 200, renamed.body);
    assert.deepEqual((await getJson(ctx.app, `/api/posts/${id}`)).body.tags, ['b_kept', 'b_target']);
    assert.deepEqual(
      (await history(ctx, id)).map((v) => [v.version, v.editor, v.tags]),
      [
        [1, 'alice', ['b_keep', 'b_old']],
        [2, 'mod', ['b_keep', 'b_new']],
        [3, null, ['b_keep', 'b_target']],
      ],
    );
  });
});
