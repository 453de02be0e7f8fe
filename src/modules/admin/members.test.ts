import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, type Ctx } from '../../../test/helpers.ts';
import { assertBadField, assertError } from '../../../test/auth-helpers.ts';
import { createUser } from '../../../test/factories.ts';
import { ban, cast } from '../../../test/moderation-helpers.ts';

const list = (ctx: Ctx, headers: Record<string, string>, query = '') => ctx.app.inject({ method: 'GET', url: `/api/admin/users${query}`, headers });

/** The usernames a moderator's request lists, in order. */
async function names(ctx: Ctx, headers: Record<string, string>, query = ''): Promise<string[]> {
  const res = await list(ctx, headers, query);
  assert.equal(res.statusCode, 200, res.body);
  return res.json().users.map((u: { username: string }) => u.username);
}

eachDatabase('admin: GET /api/admin/users, the members list of the moderation area', (ctx: Ctx) => {
  const who = cast(ctx);
  const t0 = Date.parse('2026-01-01T00:00:00.000Z');

  before(async () => {
    // Made after the cast (registered at the test clock's start), a day apart, names in mixed case.
    const start = ctx.clock.now();
    await createUser(ctx.database, { username: 'Zed', createdAt: start + 1 * 86_400_000, tier: 'pro' });
    await createUser(ctx.database, { username: 'amy', createdAt: start + 2 * 86_400_000, lastSeenAt: t0 });
    await createUser(ctx.database, { username: 'Bob_amyson', createdAt: start + 3 * 86_400_000 });
    await createUser(ctx.database, { username: 'gone_ban', createdAt: start + 4 * 86_400_000 });
  });

  test('anonymous is 401, a member 403; moderators and admins get it', async () => {
    assertError(await list(ctx, {}), 401);
    assertError(await list(ctx, who.member.headers), 403);
    assert.equal((await list(ctx, who.mod.headers)).statusCode, 200);
    assert.equal((await list(ctx, who.admin.headers)).statusCode, 200);
  });

  test('newest account first by default, or by name (case aside); each with role, tier and last visit, no email', async () => {
    assert.deepEqual((await names(ctx, who.mod.headers)).slice(0, 4), ['gone_ban', 'Bob_amyson', 'amy', 'Zed']);
    const byName = await names(ctx, who.mod.headers, '?sort=name');
    assert.deepEqual(byName, ['amy', 'Bob_amyson', 'gone_ban', 'mallory', 'mod', 'olive', 'root', 'Zed']);
    const res = await list(ctx, who.mod.headers, '?sort=name&limit=3');
    const body = res.json();
    assert.deepEqual(body.pagination, { total: 8, page: 1, perPage: 3, totalPages: 3 });
    const amy = body.users[0];
    assert.deepEqual(Object.keys(amy).sort(), ['ban', 'createdAt', 'id', 'lastSeenAt', 'role', 'tier', 'username']);
    assert.deepEqual(
      { ...amy, id: 'x', createdAt: 'x' },
      { id: 'x', username: 'amy', role: 'user', tier: 'free', createdAt: 'x', lastSeenAt: '2026-01-01T00:00:00.000Z', ban: null },
    );
    const zed = (await list(ctx, who.mod.headers, '?search=zed')).json().users[0];
    assert.deepEqual([zed.tier, zed.lastSeenAt], ['pro', null]);
    assert.deepEqual(await names(ctx, who.mod.headers, '?sort=name&limit=3&page=3'), ['root', 'Zed']);
  });

  test('filters by part of the name and by role', async () => {
    assert.deepEqual(await names(ctx, who.mod.headers, '?search=AMY&sort=name'), ['amy', 'Bob_amyson']);
    assert.deepEqual(await names(ctx, who.mod.headers, '?search=nobody_here'), []);
    assert.deepEqual(await names(ctx, who.mod.headers, '?role=moderator'), ['mod']);
    assert.deepEqual(await names(ctx, who.mod.headers, '?role=admin&search=ro'), ['root']);
    // A literal %, not a wildcard.
    assert.deepEqual(await names(ctx, who.mod.headers, '?search=%25'), []);
  });

  test('shows the ban in force, and none once it has expired', async () => {
    const res = await ban(ctx.app, who.mod.headers, 'mallory', { reason: 'spam', until: '2099-01-01T00:00:00.000Z' });
    assert.equal(res.statusCode, 200, res.body);
    const id = (await ctx.database.selectFrom('users').select('id').where('username', '=', 'gone_ban').executeTakeFirstOrThrow()).id;
    await ctx.database
      .insertInto('user_bans')
      .values({ user_id: id, reason: 'long ago', until: ctx.clock.now() - 1000, banned_by: null, created_at: ctx.clock.now() - 86_400_000 })
      .execute();
    const users = (await list(ctx, who.admin.headers, '?sort=name')).json().users as { username: string; ban: unknown }[];
    const banOf = (name: string) => users.find((u) => u.username === name)?.ban;
    assert.deepEqual(banOf('mallory'), { reason: 'spam', until: '2099-01-01T00:00:00.000Z' });
    assert.equal(banOf('gone_ban'), null);
    assert.equal(banOf('amy'), null);
  });

  test('refuses what it cannot read, naming the parameter', async () => {
    assertBadField(await list(ctx, who.mod.headers, '?limit=500'), 'limit');
    assertBadField(await list(ctx, who.mod.headers, '?sort=karma'), 'sort');
    assertBadField(await list(ctx, who.mod.headers, '?role=owner'), 'role');
    assertBadField(await list(ctx, who.mod.headers, '?email=x'), 'email');
  });
});
