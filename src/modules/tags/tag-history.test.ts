import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { assertError, ISO_MS } from '../../../test/auth-helpers.ts';
import { addAlias, imply, patchTag, unimply, uploadTagged, userAndModerator } from '../../../test/tag-helpers.ts';

interface Entry {
  id: string;
  kind: string;
  action: string;
  user: { username: string } | null;
  createdAt: string;
  before: Record<string, string> | null;
  after: Record<string, string> | null;
}

/** GET /api/tags/<name>/history, asserted 200. */
async function history(ctx: Ctx, name: string, query = '') {
  const res = await getJson(ctx.app, `/api/tags/${encodeURIComponent(name)}/history${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { name: string; history: Entry[]; pagination: { total: number; page: number; perPage: number; totalPages: number } };
}

/** The entries without their ids and times, newest first. */
const changes = (entries: Entry[]) => entries.map(({ kind, action, user, before, after }) => ({ kind, action, by: user?.username ?? null, before, after }));

eachDatabase('GET /api/tags/<name>/history', (ctx) => {
  const who = userAndModerator(ctx);

  test('changes to a tag are kept with who, when, before and after; a patch that changes nothing and a refused one leave none', async () => {
    await uploadTagged(ctx, who.alice, 'hist_tag');
    assert.deepEqual((await history(ctx, 'hist_tag')).history, [], 'a tag made by an upload has no history yet');
    assert.equal((await patchTag(ctx, who.mod.headers, 'hist_tag', { category: 'artist' })).statusCode, 200);
    assert.equal((await patchTag(ctx, who.mod.headers, 'hist_tag', { category: 'artist', description: 'Draws cats.' })).statusCode, 200);
    assert.equal((await patchTag(ctx, who.mod.headers, 'hist_tag', { description: 'Draws cats.' })).statusCode, 200);
    assert.equal((await patchTag(ctx, who.mod.headers, 'hist_tag', { category: 'painter' })).statusCode, 400);
    assert.equal((await patchTag(ctx, who.alice.headers, 'hist_tag', { category: 'meta' })).statusCode, 403);
    const page = await history(ctx, 'hist_tag');
    assert.deepEqual(changes(page.history), [
      { kind: 'tag', action: 'update', by: 'mod', before: { description: '' }, after: { description: 'Draws cats.' } },
      { kind: 'tag', action: 'update', by: 'mod', before: { category: 'general' }, after: { category: 'artist' } },
    ]);
    for (const e of page.history) assert.match(e.createdAt, ISO_MS);
    assert.deepEqual(page.pagination, { total: 2, page: 1, perPage: 50, totalPages: 1 });
  });

  test('a rename is the name change and the alias the old name became; the old name answers the same history', async () => {
    await uploadTagged(ctx, who.alice, 'before_rename');
    assert.equal((await patchTag(ctx, who.mod.headers, 'before_rename', { name: 'after_rename', category: 'meta' })).statusCode, 200);
    const now = await history(ctx, 'after_rename');
    assert.equal(now.name, 'after_rename');
    assert.deepEqual(changes(now.history), [
      { kind: 'tag', action: 'update', by: 'mod', before: { name: 'before_rename', category: 'general' }, after: { name: 'after_rename', category: 'meta' } },
      { kind: 'alias', action: 'create', by: 'mod', before: null, after: { from: 'before_rename', to: 'after_rename' } },
    ]);
    assert.deepEqual(await history(ctx, 'before_rename'), now);
  });

  test('aliases: made and removed, listed on the target and on the tag the name was', async () => {
    await uploadTagged(ctx, who.alice, 'hist_kitten');
    await uploadTagged(ctx, who.alice, 'hist_cat');
    assert.equal((await addAlias(ctx, who.mod.headers, 'hist_kitten', 'hist_cat')).statusCode, 201);
    assert.equal((await addAlias(ctx, who.mod.headers, 'hist_cat', 'hist_kitten')).statusCode, 400, 'a refused alias (a cycle) leaves no entry');
    assert.equal((await ctx.app.inject({ method: 'DELETE', url: '/api/tag-aliases/hist_kitten', headers: who.mod.headers })).statusCode, 200);
    const expected = [
      { kind: 'alias', action: 'delete', by: 'mod', before: { from: 'hist_kitten', to: 'hist_cat' }, after: null },
      { kind: 'alias', action: 'create', by: 'mod', before: null, after: { from: 'hist_kitten', to: 'hist_cat' } },
    ];
    assert.deepEqual(changes((await history(ctx, 'hist_cat')).history), expected);
    const own = await history(ctx, 'hist_kitten');
    assert.equal(own.name, 'hist_kitten', 'the name is its own tag again');
    assert.deepEqual(changes(own.history), expected);
  });

  test('implications: made and removed, listed on both sides; newest first across kinds, paged', async () => {
    assert.equal((await imply(ctx, who.mod.headers, 'hist_lion', 'hist_feline')).statusCode, 201);
    assert.equal((await imply(ctx, who.mod.headers, 'hist_feline', 'hist_lion')).statusCode, 400, 'a refused cycle leaves no entry');
    assert.equal((await patchTag(ctx, who.mod.headers, 'hist_feline', { category: 'meta' })).statusCode, 200);
    assert.equal((await unimply(ctx, who.mod.headers, 'hist_lion', 'hist_feline')).statusCode, 200);
    const pair = { from: 'hist_lion', to: 'hist_feline' };
    assert.deepEqual(changes((await history(ctx, 'hist_lion')).history), [
      { kind: 'implication', action: 'delete', by: 'mod', before: pair, after: null },
      { kind: 'implication', action: 'create', by: 'mod', before: null, after: pair },
    ]);
    const feline = await history(ctx, 'hist_feline');
    assert.deepEqual(
      feline.history.map((e) => `${e.kind} ${e.action}`),
      ['implication delete', 'tag update', 'implication create'],
    );
    const second = await history(ctx, 'hist_feline', '?limit=2&page=2');
    assert.deepEqual(second.history, feline.history.slice(2));
    assert.deepEqual(second.pagination, { total: 3, page: 2, perPage: 2, totalPages: 2 });
  });

  test('an unknown tag is 404; bad paging is 400', async () => {
    assertError(await ctx.app.inject({ method: 'GET', url: '/api/tags/no_such_tag/history' }), 404);
    await uploadTagged(ctx, who.alice, 'hist_paged');
    assertError(await ctx.app.inject({ method: 'GET', url: '/api/tags/hist_paged/history?limit=0' }), 400);
  });
});
