import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { changeSettings, eachDatabase, type Ctx } from '../../../test/helpers.ts';
import { assertBadField, assertError, loginOk, PASSWORD, register, sessionToken, setAccount, type Account } from '../../../test/auth-helpers.ts';

type Headers = Record<string, string>;

const makeInvite = (ctx: Ctx, headers: Headers, payload: Record<string, unknown> = {}) =>
  ctx.app.inject({ method: 'POST', url: '/api/admin/invites', headers, payload });

async function inviteCode(ctx: Ctx, headers: Headers, payload: Record<string, unknown> = {}): Promise<string> {
  const res = await makeInvite(ctx, headers, payload);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().code;
}

const signUp = (ctx: Ctx, username: string, invite?: string) =>
  ctx.app.inject({ method: 'POST', url: '/api/auth/register', payload: { username, password: PASSWORD, ...(invite === undefined ? {} : { invite }) } });

const listInvites = (ctx: Ctx, headers: Headers, query = '') => ctx.app.inject({ url: `/api/admin/invites${query}`, headers });

const withdraw = (ctx: Ctx, headers: Headers, id: string) => ctx.app.inject({ method: 'DELETE', url: `/api/admin/invites/${id}`, headers });

const mode = async (ctx: Ctx) => (await ctx.app.inject({ url: '/api/auth/registration' })).json().mode;

/** An admin, a moderator and a member, registered while registration is open, then the mode is switched. */
function staff(ctx: Ctx, registration: 'invite' | 'closed') {
  const who = {} as { admin: Account; mod: Account; member: Account };
  before(async () => {
    await changeSettings(ctx, { registration: 'open' });
    who.admin = await register(ctx.app, 'boss');
    who.mod = await register(ctx.app, 'mod');
    who.member = await register(ctx.app, 'member');
    await setAccount(ctx.database, 'boss', { role: 'admin' });
    await setAccount(ctx.database, 'mod', { role: 'moderator' });
    await changeSettings(ctx, { registration });
  });
  return who;
}

eachDatabase('registration: the default is open', (ctx) => {
  test('anyone signs up without a code, and the mode says open', async () => {
    assert.equal(await mode(ctx), 'open');
    const res = await signUp(ctx, 'walkin');
    assert.equal(res.statusCode, 201, res.body);
    assert.ok(sessionToken(res), 'signed in');
  });
});

eachDatabase('registration: by invite', (ctx) => {
  const who = staff(ctx, 'invite');

  test('the mode is public, so the sign-up form can ask for a code', async () => {
    assert.equal(await mode(ctx), 'invite');
  });

  test('an admin makes a code; it registers one account, signed in, and the list shows who made and who used it', async () => {
    const made = await makeInvite(ctx, who.admin.headers, { note: 'for newbie' });
    assert.equal(made.statusCode, 201, made.body);
    const { code, invite } = made.json();
    assert.match(code, /^inv_[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(
      [invite.status, invite.createdBy, invite.usedBy, invite.expiresAt, invite.note],
      ['unused', { username: 'boss' }, null, null, 'for newbie'],
    );

    const res = await signUp(ctx, 'newbie', code);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().user.username, 'newbie');
    assert.ok(sessionToken(res));

    const listed = await listInvites(ctx, who.admin.headers);
    assert.equal(listed.statusCode, 200, listed.body);
    const row = listed.json().invites.find((i: { id: string }) => i.id === invite.id);
    assert.deepEqual([row.status, row.usedBy, typeof row.usedAt], ['used', { username: 'newbie' }, 'string']);
    assert.ok(!listed.body.includes(code), 'the code itself is never shown again');

    const again = await signUp(ctx, 'second', code);
    assertError(again, 403);
    assert.match(again.json().error, /already been used/);
    assert.deepEqual(await usernames(ctx, 'second'), [], 'no account was made');
  });

  test('without a code, or with an unknown one, sign-up is 403 and makes nothing; a string that cannot be a code is 400', async () => {
    const missing = await signUp(ctx, 'nocode');
    assertError(missing, 403);
    assert.match(missing.json().error, /invit/i);
    assert.equal(missing.json().details[0].field, 'invite');
    const unknown = await signUp(ctx, 'nocode', `inv_${'A'.repeat(43)}`);
    assertError(unknown, 403);
    assert.match(unknown.json().error, /not valid/);
    assertBadField(await signUp(ctx, 'nocode', 'letmein'), 'invite');
    assert.deepEqual(await usernames(ctx, 'nocode'), []);
  });

  test('a code with expiresIn works until then, and is 403 expired after', async () => {
    const code = await inviteCode(ctx, who.admin.headers, { expiresIn: 3600 });
    const late = await inviteCode(ctx, who.admin.headers, { expiresIn: 3600 });
    ctx.clock.advance(3599_000);
    assert.equal((await signUp(ctx, 'intime', code)).statusCode, 201);
    ctx.clock.advance(1000);
    const res = await signUp(ctx, 'toolate', late);
    assertError(res, 403);
    assert.match(res.json().error, /expired/);
    const listed = (await listInvites(ctx, who.admin.headers)).json().invites;
    assert.ok(listed.some((i: { status: string }) => i.status === 'expired'));
    assertBadField(await makeInvite(ctx, who.admin.headers, { expiresIn: 0 }), 'expiresIn');
  });

  test('a taken username does not spend the code', async () => {
    const code = await inviteCode(ctx, who.admin.headers);
    assertError(await signUp(ctx, 'MEMBER', code), 409);
    assert.equal((await signUp(ctx, 'fresh', code)).statusCode, 201, 'the code still works');
  });

  test('two sign-ups racing on one code: exactly one account is made', async () => {
    const code = await inviteCode(ctx, who.admin.headers);
    const results = await Promise.all(['racer1', 'racer2', 'racer3'].map((name) => signUp(ctx, name, code)));
    const statuses = results.map((r) => r.statusCode).sort();
    assert.deepEqual(statuses, [201, 403, 403], results.map((r) => r.body).join('\n'));
    assert.equal((await usernames(ctx, 'racer')).length, 1, 'the losers left no account behind');
  });

  test('who may make, list and withdraw invites: admins only', async () => {
    const id = (await makeInvite(ctx, who.admin.headers)).json().invite.id;
    assertError(await makeInvite(ctx, {}), 401);
    assertError(await listInvites(ctx, {}), 401);
    assertError(await withdraw(ctx, {}, id), 401);
    for (const headers of [who.member.headers, who.mod.headers]) {
      assertError(await makeInvite(ctx, headers), 403);
      assertError(await listInvites(ctx, headers), 403);
      assertError(await withdraw(ctx, headers, id), 403);
    }
    assert.equal((await listInvites(ctx, who.admin.headers)).statusCode, 200);
    assert.equal((await withdraw(ctx, who.admin.headers, id)).statusCode, 200);
  });

  test('a withdrawn code no longer works; a used one cannot be withdrawn (409); an unknown id is 404', async () => {
    const made = (await makeInvite(ctx, who.admin.headers)).json();
    const res = await withdraw(ctx, who.admin.headers, made.invite.id);
    assert.equal(res.statusCode, 200, res.body);
    assertError(await signUp(ctx, 'withdrawn', made.code), 403);
    assertError(await withdraw(ctx, who.admin.headers, made.invite.id), 404);
    assertError(await withdraw(ctx, who.admin.headers, 'abc'), 404);

    const used = (await makeInvite(ctx, who.admin.headers)).json();
    assert.equal((await signUp(ctx, 'keeper', used.code)).statusCode, 201);
    assertError(await withdraw(ctx, who.admin.headers, used.invite.id), 409);
    const listed = (await listInvites(ctx, who.admin.headers)).json().invites;
    assert.ok(
      listed.some((i: { id: string }) => i.id === used.invite.id),
      'the used one is still listed',
    );
  });

  test('the list pages newest first', async () => {
    const before = (await listInvites(ctx, who.admin.headers)).json().total;
    const a = (await makeInvite(ctx, who.admin.headers, { note: 'page a' })).json().invite.id;
    const b = (await makeInvite(ctx, who.admin.headers, { note: 'page b' })).json().invite.id;
    const page1 = (await listInvites(ctx, who.admin.headers, '?limit=1')).json();
    const page2 = (await listInvites(ctx, who.admin.headers, '?limit=1&page=2')).json();
    assert.deepEqual([page1.invites[0].id, page2.invites[0].id], [b, a]);
    assert.deepEqual([page1.total, page1.totalPages], [before + 2, before + 2]);
    assertBadField(await listInvites(ctx, who.admin.headers, '?limit=500'), 'limit');
  });

  test('signing in is unaffected by the mode', async () => {
    await loginOk(ctx.app, 'member');
  });
});

eachDatabase('registration: closed', (ctx) => {
  const who = staff(ctx, 'closed');

  test('sign-up is 403 saying registration is closed, even with a valid invite; nothing is made', async () => {
    assert.equal(await mode(ctx), 'closed');
    const code = await inviteCode(ctx, who.admin.headers);
    for (const res of [await signUp(ctx, 'outsider'), await signUp(ctx, 'outsider', code)]) {
      assertError(res, 403);
      assert.match(res.json().error, /closed/);
    }
    assert.deepEqual(await usernames(ctx, 'outsider'), []);
    await loginOk(ctx.app, 'member');
  });
});

async function usernames(ctx: Ctx, prefix: string): Promise<string[]> {
  const rows = await ctx.database.selectFrom('users').select('username').where('username', 'like', `${prefix}%`).execute();
  return rows.map((r) => r.username);
}
