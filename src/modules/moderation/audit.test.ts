import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, type Ctx } from '../../../test/helpers.ts';
import { assertBadField, assertError, ISO_MS } from '../../../test/auth-helpers.ts';
import { addAlias, imply, patchTag, unimply, uploadTagged } from '../../../test/tag-helpers.ts';
import { audit, auditEntries, ban, cast, comment, type Entry } from '../../../test/moderation-helpers.ts';
import { COMMAND_LINE } from '../../core/deps.ts';
import { changeAccount } from '../admin/admin.service.ts';

const pick = (e: Entry) => [e.actor?.username ?? null, e.action, e.target, e.details];

eachDatabase('moderation: the audit log', (ctx: Ctx) => {
  const who = cast(ctx);
  const put = (headers: Record<string, string>, username: string, payload: object) =>
    ctx.app.inject({ method: 'PUT', url: `/api/admin/users/${username}`, headers, payload });
  const del = (headers: Record<string, string>, url: string) => ctx.app.inject({ method: 'DELETE', url, headers });

  before(async () => {
    ctx.clock.advance(1000);
  });

  test('only moderators and admins read it: anonymous 401, a member 403', async () => {
    assertError(await audit(ctx.app, {}), 401);
    assertError(await audit(ctx.app, who.member.headers), 403);
    assertError(await audit(ctx.app, who.owner.headers), 403);
    assert.equal((await audit(ctx.app, who.mod.headers)).statusCode, 200);
    assert.deepEqual((await audit(ctx.app, who.admin.headers)).json(), { entries: [], pagination: { total: 0, page: 1, perPage: 50, totalPages: 0 } });
  });

  test('role and tier changes, by an admin or the command line, are recorded with before and after; a change to the same value is not', async () => {
    assert.equal((await put(who.admin.headers, 'Mallory', { role: 'moderator', tier: 'pro' })).statusCode, 200);
    assert.equal((await put(who.admin.headers, 'mallory', { role: 'moderator' })).statusCode, 200, 'no change');
    await changeAccount(ctx.app.deps, COMMAND_LINE, 'mallory', { role: 'user', tier: 'free' });
    const entries = await auditEntries(ctx.app, who.mod.headers, '?target=user:mallory');
    assert.deepEqual(entries.map(pick), [
      [null, 'user.tier', 'user:mallory', { before: 'pro', after: 'free', revokedKeys: 0 }],
      [null, 'user.role', 'user:mallory', { before: 'moderator', after: 'user' }],
      ['root', 'user.tier', 'user:mallory', { before: 'free', after: 'pro', revokedKeys: 0 }],
      ['root', 'user.role', 'user:mallory', { before: 'user', after: 'moderator' }],
    ]);
    const [first] = entries.slice(-1);
    assert.match(first.createdAt, ISO_MS);
    assert.match(first.id, /^\d+$/);
  });

  test("a moderator's edit or delete of another's post or comment is recorded; the owner's own is not", async () => {
    const post = await uploadTagged(ctx, who.owner, 'audited');
    const mine = await uploadTagged(ctx, who.owner, 'audited_mine');
    const note = await comment(ctx.app, who.owner.headers, mine, 'nasty words');
    const ownNote = await comment(ctx.app, who.owner.headers, mine, 'mine to delete');
    const count = (await auditEntries(ctx.app, who.mod.headers)).length;

    assert.equal(
      (await ctx.app.inject({ method: 'PATCH', url: `/api/posts/${mine}`, headers: who.owner.headers, payload: { title: 'mine' } })).statusCode,
      200,
    );
    assert.equal((await del(who.owner.headers, `/api/comments/${ownNote}`)).statusCode, 200);
    assert.equal((await auditEntries(ctx.app, who.mod.headers)).length, count, "an owner's own edits are not moderation");

    const edit = await ctx.app.inject({ method: 'PATCH', url: `/api/posts/${post}`, headers: who.mod.headers, payload: { contentRating: 'unsafe' } });
    assert.equal(edit.statusCode, 200, edit.body);
    assert.equal((await del(who.mod.headers, `/api/comments/${note}`)).statusCode, 200);
    assert.equal((await del(who.admin.headers, `/api/posts/${post}`)).statusCode, 200);
    const entries = await auditEntries(ctx.app, who.mod.headers, '?limit=3');
    assert.deepEqual(entries.map(pick), [
      ['root', 'post.delete', `post:${post}`, { title: 'a', uploader: 'olive' }],
      ['mod', 'comment.delete', `comment:${note}`, { postId: mine, author: 'olive', content: 'nasty words', removed: 1 }],
      ['mod', 'post.edit', `post:${post}`, { contentRating: 'unsafe' }],
    ]);
  });

  test("a moderator's change to someone else's pool is recorded; the creator's own is not", async () => {
    const post = await uploadTagged(ctx, who.owner, 'pooled');
    const made = await ctx.app.inject({ method: 'POST', url: '/api/pools', headers: who.owner.headers, payload: { name: 'Olive pool' } });
    const pool = made.json().pool._id;
    const url = `/api/pools/${pool}`;
    assert.equal((await ctx.app.inject({ method: 'PATCH', url, headers: who.owner.headers, payload: { description: 'mine' } })).statusCode, 200);
    assert.deepEqual(await auditEntries(ctx.app, who.mod.headers, `?target=pool:${pool}`), []);
    assert.equal((await ctx.app.inject({ method: 'POST', url: `${url}/posts`, headers: who.mod.headers, payload: { postId: post } })).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'PATCH', url, headers: who.mod.headers, payload: { name: 'Renamed' } })).statusCode, 200);
    assert.equal((await del(who.mod.headers, url)).statusCode, 200);
    const entries = await auditEntries(ctx.app, who.mod.headers, `?target=pool:${pool}`);
    assert.deepEqual(entries.map(pick), [
      ['mod', 'pool.delete', `pool:${pool}`, { name: 'Renamed', creator: 'olive' }],
      ['mod', 'pool.edit', `pool:${pool}`, { name: 'Olive pool', creator: 'olive', changes: { name: 'Renamed' } }],
      ['mod', 'pool.edit', `pool:${pool}`, { name: 'Olive pool', creator: 'olive', added: post, position: 1 }],
    ]);
  });

  test('tag changes, aliases and implications, made and deleted, are recorded', async () => {
    assert.equal((await patchTag(ctx, who.mod.headers, 'audited_mine', { category: 'meta' })).statusCode, 200);
    assert.equal((await addAlias(ctx, who.mod.headers, 'aud_kitty', 'aud_cat')).statusCode, 201);
    assert.equal((await del(who.admin.headers, '/api/tag-aliases/aud_kitty')).statusCode, 200);
    assert.ok([201, 202].includes((await imply(ctx, who.mod.headers, 'aud_cat', 'aud_animal')).statusCode));
    assert.equal((await unimply(ctx, who.mod.headers, 'aud_cat', 'aud_animal')).statusCode, 200);
    const entries = await auditEntries(ctx.app, who.mod.headers, '?limit=5');
    assert.deepEqual(entries.map(pick), [
      ['mod', 'tag_implication.delete', 'tag_implication:aud_cat->aud_animal', { before: { from: 'aud_cat', to: 'aud_animal' }, after: null }],
      ['mod', 'tag_implication.create', 'tag_implication:aud_cat->aud_animal', { before: null, after: { from: 'aud_cat', to: 'aud_animal' } }],
      ['root', 'tag_alias.delete', 'tag_alias:aud_kitty', { before: { from: 'aud_kitty', to: 'aud_cat' }, after: null }],
      ['mod', 'tag_alias.create', 'tag_alias:aud_kitty', { before: null, after: { from: 'aud_kitty', to: 'aud_cat' } }],
      ['mod', 'tag.update', 'tag:audited_mine', { before: { category: 'general' }, after: { category: 'meta' } }],
    ]);
  });

  test('a bulk tag edit is recorded with its query and the number of posts it takes', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/posts/bulk-tags', headers: who.mod.headers, payload: { q: 'pooled', add: ['aud_bulk'] } });
    assert.equal(res.statusCode, 202, res.body);
    const [entry] = await auditEntries(ctx.app, who.mod.headers, '?action=posts.bulk_tags');
    assert.deepEqual(pick(entry), ['mod', 'posts.bulk_tags', `job:${res.json().job.id}`, { q: 'pooled', add: ['aud_bulk'], remove: [], posts: 1 }]);
  });

  test('a refused action leaves no entry', async () => {
    const total = async () => (await audit(ctx.app, who.mod.headers)).json().pagination.total;
    const before = await total();
    assertError(await addAlias(ctx, who.mod.headers, 'aud_x', 'aud_x'), 400);
    assertError(await put(who.admin.headers, 'ghost', { role: 'moderator' }), 404);
    assertError(await put(who.mod.headers, 'olive', { role: 'moderator' }), 403);
    assertError(await ban(ctx.app, who.mod.headers, 'root', { reason: 'coup' }), 403);
    assertError(await patchTag(ctx, who.owner.headers, 'audited_mine', { category: 'artist' }), 403);
    assert.equal(await total(), before);
  });

  test('an action and its entry commit together: when the entry cannot be written, the change is rolled back', async () => {
    // An actor id that names no account: the entry's foreign key refuses it, inside the change's transaction.
    const nobody = { id: 999_999, username: 'ghost', role: 'admin' as const };
    await assert.rejects(changeAccount(ctx.app.deps, nobody, 'olive', { role: 'moderator', tier: 'enterprise' }));
    const olive = await ctx.database.selectFrom('users').select(['role', 'tier']).where('username_lower', '=', 'olive').executeTakeFirstOrThrow();
    assert.deepEqual(olive, { role: 'user', tier: 'free' });
    assert.deepEqual(await auditEntries(ctx.app, who.mod.headers, '?target=user:olive'), []);
  });

  test('filters by actor, action and target combine; pages are page and limit; bad filters are 400', async () => {
    const all = await auditEntries(ctx.app, who.admin.headers, '?limit=200');
    const byRoot = await auditEntries(ctx.app, who.mod.headers, '?actor=ROOT&limit=200');
    assert.deepEqual(
      byRoot.map((e) => e.id),
      all.filter((e) => e.actor?.username === 'root').map((e) => e.id),
    );
    assert.ok(byRoot.length >= 3);
    const deletes = await auditEntries(ctx.app, who.mod.headers, '?action=tag_alias.delete');
    assert.deepEqual(
      deletes.map((e) => e.action),
      ['tag_alias.delete'],
    );
    assert.deepEqual(await auditEntries(ctx.app, who.mod.headers, '?actor=mod&action=user.role'), []);
    assert.equal((await auditEntries(ctx.app, who.mod.headers, '?actor=root&action=user.role&target=user:mallory')).length, 1);
    assert.deepEqual(await auditEntries(ctx.app, who.mod.headers, '?actor=nobody'), []);

    const page = (await audit(ctx.app, who.mod.headers, '?limit=2&page=2')).json();
    assert.deepEqual(
      page.entries.map((e: Entry) => e.id),
      all.slice(2, 4).map((e) => e.id),
    );
    assert.deepEqual(page.pagination, { total: all.length, page: 2, perPage: 2, totalPages: Math.ceil(all.length / 2) });
    const ids = all.map((e) => Number(e.id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
      'newest first',
    );

    assertBadField(await audit(ctx.app, who.mod.headers, '?action=user.delete'), 'action');
    assertBadField(await audit(ctx.app, who.mod.headers, '?limit=0'), 'limit');
    assertBadField(await audit(ctx.app, who.mod.headers, '?page=0'), 'page');
    assertBadField(await audit(ctx.app, who.mod.headers, '?since=yesterday'), 'since');
  });
});
