import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../app.ts';
import { anotherInstance, eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { assertBadField, assertError, createKeyOk, login, loginOk, me, PASSWORD, setAccount } from '../../../test/auth-helpers.ts';
import { multipart } from '../../../test/multipart.ts';
import * as fx from '../../../test/media-fixtures.ts';
import { uploadTagged } from '../../../test/tag-helpers.ts';
import { auditEntries, ban, cast, comment, report, unban } from '../../../test/moderation-helpers.ts';

type Headers = Record<string, string>;
type Injected = Awaited<ReturnType<App['inject']>>;
const HOUR = 3_600_000;

/** A 403 of the ban: the message names the reason and the end, and `ban` carries both. */
function assertBanned(res: Injected, reason: string, until: string | null): void {
  assertError(res, 403);
  const body = res.json();
  assert.ok(body.error.includes(reason), body.error);
  assert.ok(body.error.includes(until ?? 'permanent'), body.error);
  assert.deepEqual(body.ban, { reason, until });
}

eachDatabase('moderation: bans', (ctx: Ctx) => {
  const who = cast(ctx);
  let second: App;
  let post: string;
  let own: string;
  let note: string;
  let key: string;

  before(async () => {
    post = await uploadTagged(ctx, who.member, 'someone_elses');
    own = await uploadTagged(ctx, who.owner, 'olives');
    note = await comment(ctx.app, who.owner.headers, own, 'my own comment');
    await setAccount(ctx.database, 'olive', { tier: 'pro' });
    key = (await createKeyOk(ctx.app, who.owner.headers, 'before the ban')).key;
    second = await anotherInstance(ctx);
  });
  after(() => second?.close());

  /** Every kind of write olive can make, each of which a ban refuses. */
  const writes = (h: Headers) => [
    async () => {
      const m = multipart({ tags: 'x' }, [{ filename: 'a.png', data: await fx.png(7, 16, 16) }]);
      return ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...h } });
    },
    () => ctx.app.inject({ method: 'POST', url: '/api/comments', headers: h, payload: { postId: post, content: 'hi' } }),
    () => ctx.app.inject({ method: 'DELETE', url: `/api/comments/${note}`, headers: h }),
    () => ctx.app.inject({ method: 'PUT', url: `/api/posts/${post}/like`, headers: h }),
    () => ctx.app.inject({ method: 'PUT', url: `/api/posts/${post}/favorite`, headers: h }),
    () => ctx.app.inject({ method: 'PATCH', url: `/api/posts/${own}`, headers: h, payload: { title: 'renamed' } }),
    () => ctx.app.inject({ method: 'DELETE', url: `/api/posts/${own}`, headers: h }),
    () => ctx.app.inject({ method: 'POST', url: '/api/pools', headers: h, payload: { name: 'my pool' } }),
    () => ctx.app.inject({ method: 'PATCH', url: '/api/users/me', headers: h, payload: { bio: 'banned bio' } }),
    () => ctx.app.inject({ method: 'POST', url: '/api/user/api-keys', headers: h, payload: { name: 'another' } }),
    () => report(ctx.app, h, { postId: post, reason: 'revenge' }),
    () => ctx.app.inject({ method: 'POST', url: `/favorites.json?post_id=${post}`, headers: h }),
  ];

  /** What those writes would have changed, to see that none did. */
  const state = async () => ({
    own: (await getJson(ctx.app, `/api/posts/${own}`)).body.title,
    post: (await getJson(ctx.app, `/api/posts/${post}`)).body.stats,
    comments: (await getJson(ctx.app, `/api/posts/${post}/comments`)).body.total,
    note: (await getJson(ctx.app, `/api/posts/${own}/comments`)).body.total,
    bio: (await getJson(ctx.app, '/api/users/olive')).body.bio,
    pools: (await getJson(ctx.app, '/api/pools')).body.pagination ?? (await getJson(ctx.app, '/api/pools')).body.total,
    posts: (await getJson(ctx.app, '/api/posts')).body.totalPosts,
  });

  test('who may ban: not anonymous (401) nor a member (403); a moderator bans members only; an admin, members and moderators; nobody an admin', async () => {
    const reason = 'who may ban';
    assertError(await ban(ctx.app, {}, 'mallory', { reason }), 401);
    assertError(await ban(ctx.app, who.owner.headers, 'mallory', { reason }), 403);
    assertError(await ban(ctx.app, who.mod.headers, 'root', { reason }), 403);
    assertError(await ban(ctx.app, who.mod.headers, 'mod', { reason }), 403);
    assertError(await ban(ctx.app, who.admin.headers, 'root', { reason }), 403);
    assertError(await unban(ctx.app, who.owner.headers, 'mallory'), 403);
    assertError(await ban(ctx.app, who.admin.headers, 'nobody', { reason }), 404);
    const rows = await ctx.database.selectFrom('user_bans').selectAll().execute();
    assert.deepEqual(rows, [], 'nothing was banned');

    const byMod = await ban(ctx.app, who.mod.headers, 'Mallory', { reason: 'spam' });
    assert.equal(byMod.statusCode, 200, byMod.body);
    assert.deepEqual(byMod.json().ban, {
      username: 'mallory',
      reason: 'spam',
      until: null,
      bannedBy: { username: 'mod' },
      createdAt: new Date(ctx.clock.now()).toISOString(),
    });
    assert.equal((await unban(ctx.app, who.mod.headers, 'mallory')).statusCode, 200);
    assert.equal((await ban(ctx.app, who.admin.headers, 'mod', { reason: 'a rogue moderator' })).statusCode, 200);
    assertError(await unban(ctx.app, who.mod.headers, 'mod'), 403);
    assert.equal((await unban(ctx.app, who.admin.headers, 'mod')).statusCode, 200);
    assertError(await unban(ctx.app, who.admin.headers, 'mod'), 404);
  });

  test('bad input is 400 naming the field, and bans nobody', async () => {
    assertBadField(await ban(ctx.app, who.mod.headers, 'olive', {}), 'reason');
    assertBadField(await ban(ctx.app, who.mod.headers, 'olive', { reason: '' }), 'reason');
    assertBadField(await ban(ctx.app, who.mod.headers, 'olive', { reason: '   ' }), 'reason');
    assertBadField(await ban(ctx.app, who.mod.headers, 'olive', { reason: 'r'.repeat(501) }), 'reason');
    assertBadField(await ban(ctx.app, who.mod.headers, 'olive', { reason: 'spam', until: 'tomorrow' }), 'until');
    assertBadField(await ban(ctx.app, who.mod.headers, 'olive', { reason: 'spam', until: new Date(ctx.clock.now() - 1000).toISOString() }), 'until');
    assertBadField(await ban(ctx.app, who.mod.headers, 'olive', { reason: 'spam', days: 3 }), 'days');
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/admin/users/olive/ban', headers: who.mod.headers })).statusCode, 404);
  });

  test('a banned user reads, but every write, by session or by any of their keys, is 403 naming the reason and "permanent"; nothing changes', async () => {
    const before = await state();
    const res = await ban(ctx.app, who.mod.headers, 'olive', { reason: 'posting spam' });
    assert.equal(res.statusCode, 200, res.body);
    for (const [i, write] of writes(who.owner.headers).entries()) {
      const refused = await write();
      assert.equal(refused.statusCode, 403, `write ${i}: ${refused.body}`);
      assert.ok(refused.body.includes('posting spam') && refused.body.includes('permanent'), `write ${i}: ${refused.body}`);
    }
    assertBanned(
      await ctx.app.inject({ method: 'POST', url: '/api/comments', headers: who.owner.headers, payload: { postId: post, content: 'x' } }),
      'posting spam',
      null,
    );
    const byKey = { 'x-api-key': key };
    for (const [i, write] of writes(byKey).entries()) assert.equal((await write()).statusCode, 403, `write ${i} by key`);
    assertBanned(await ctx.app.inject({ method: 'PUT', url: `/api/posts/${post}/like`, headers: byKey }), 'posting spam', null);
    assert.deepEqual(await state(), before, 'no write went through');

    // Reads still work, by session and by key.
    assert.equal((await me(ctx.app, who.owner.headers)).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/posts', headers: byKey })).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/user/api-keys', headers: who.owner.headers })).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'GET', url: `/api/posts/${own}`, headers: who.owner.headers })).statusCode, 200);
    // Signing in and out and changing the password are not refused.
    const session = await loginOk(ctx.app, 'olive');
    assert.equal((await ctx.app.inject({ method: 'POST', url: '/api/auth/logout', headers: session })).statusCode, 200);
    const pw = await ctx.app.inject({
      method: 'PUT',
      url: '/api/users/me/password',
      headers: who.owner.headers,
      payload: { currentPassword: PASSWORD, newPassword: 'a new password' },
    });
    assert.equal(pw.statusCode, 200, pw.body);
    assert.equal((await login(ctx.app, 'olive', 'a new password')).statusCode, 200);

    const shown = await ctx.app.inject({ method: 'GET', url: '/api/admin/users/olive/ban', headers: who.mod.headers });
    assert.equal(shown.json().ban.reason, 'posting spam');
    assert.equal((await unban(ctx.app, who.mod.headers, 'olive')).statusCode, 200);
  });

  test('a ban until a time names its end, and no longer applies once the clock passes it', async () => {
    const until = new Date(ctx.clock.now() + 2 * HOUR).toISOString();
    assert.equal((await ban(ctx.app, who.admin.headers, 'olive', { reason: 'cool down', until })).json().ban.until, until);
    assertBanned(await ctx.app.inject({ method: 'POST', url: '/api/pools', headers: who.owner.headers, payload: { name: 'later' } }), 'cool down', until);
    ctx.clock.advance(2 * HOUR - 1);
    assertBanned(await ctx.app.inject({ method: 'PATCH', url: '/api/users/me', headers: who.owner.headers, payload: { bio: 'x' } }), 'cool down', until);
    ctx.clock.advance(1);
    const bio = await ctx.app.inject({ method: 'PATCH', url: '/api/users/me', headers: who.owner.headers, payload: { bio: 'back again' } });
    assert.equal(bio.statusCode, 200, bio.body);
    assert.equal(
      (await ctx.app.inject({ method: 'GET', url: '/api/admin/users/olive/ban', headers: who.mod.headers })).statusCode,
      404,
      'an expired ban is not shown',
    );
    // An expired ban can still be lifted (and that is audited).
    assert.equal((await unban(ctx.app, who.mod.headers, 'olive')).statusCode, 200);
  });

  test('a ban replaces the one in force; lifting it lets the user write again at once', async () => {
    await ban(ctx.app, who.mod.headers, 'olive', { reason: 'first', until: new Date(ctx.clock.now() + HOUR).toISOString() });
    await ban(ctx.app, who.mod.headers, 'olive', { reason: 'second, for good' });
    assertBanned(await ctx.app.inject({ method: 'PUT', url: `/api/posts/${post}/favorite`, headers: who.owner.headers }), 'second, for good', null);
    assert.equal((await unban(ctx.app, who.mod.headers, 'olive')).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'PUT', url: `/api/posts/${post}/favorite`, headers: who.owner.headers })).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'PUT', url: `/api/posts/${post}/like`, headers: { 'x-api-key': key } })).statusCode, 200);
  });

  test('a ban made through one instance holds on another at once, and so does its lifting', async () => {
    assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${post}/favorite`, headers: who.owner.headers })).statusCode, 200);
    assert.equal((await ban(ctx.app, who.mod.headers, 'olive', { reason: 'fleet-wide' })).statusCode, 200);
    assertBanned(await second.inject({ method: 'PUT', url: `/api/posts/${post}/favorite`, headers: who.owner.headers }), 'fleet-wide', null);
    assertBanned(await second.inject({ method: 'PUT', url: `/api/posts/${post}/favorite`, headers: { 'x-api-key': key } }), 'fleet-wide', null);
    assert.equal((await unban(second, who.mod.headers, 'olive')).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'PUT', url: `/api/posts/${post}/favorite`, headers: who.owner.headers })).statusCode, 200);
  });

  test('a banned moderator can no longer moderate, but still reads the audit log', async () => {
    await setAccount(ctx.database, 'mallory', { role: 'moderator' });
    assert.equal((await ban(ctx.app, who.admin.headers, 'mallory', { reason: 'abused the role' })).statusCode, 200);
    assertBanned(await ban(ctx.app, who.member.headers, 'olive', { reason: 'x' }), 'abused the role', null);
    assertBanned(
      await ctx.app.inject({ method: 'PATCH', url: '/api/tags/olives', headers: who.member.headers, payload: { category: 'meta' } }),
      'abused the role',
      null,
    );
    assertBanned(await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${own}`, headers: who.member.headers }), 'abused the role', null);
    assert.equal((await getJson(ctx.app, `/api/posts/${own}`)).status, 200);
    const entries = await auditEntries(ctx.app, who.member.headers, '?target=user:mallory');
    assert.deepEqual(
      entries.map((e) => [e.action, e.actor?.username, e.details]),
      [
        ['user.ban', 'root', { reason: 'abused the role', until: null }],
        ['user.unban', 'mod', { reason: 'spam', until: null, expired: false }],
        ['user.ban', 'mod', { reason: 'spam', until: null }],
      ],
    );
  });
});
