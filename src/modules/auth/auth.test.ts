import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { anotherInstance, eachDatabase, type Ctx } from '../../../test/helpers.ts';
import {
  ISO_MS,
  PASSWORD,
  SESSION,
  assertBadField,
  assertError,
  cookieHeader,
  login,
  loginOk,
  me,
  register,
  sessionToken,
  sha256Hex,
  type Account,
} from '../../../test/auth-helpers.ts';

type Cookie = { name: string; value: string; httpOnly?: boolean; secure?: boolean; sameSite?: string; path?: string };
const sessionCookieOf = (res: { cookies: unknown }) => (res.cookies as Cookie[]).find((c) => c.name === SESSION);
const registerRaw = (ctx: Ctx, payload: object, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url: '/api/auth/register', payload, headers });
const logout = (ctx: Ctx, headers: Record<string, string>) => ctx.app.inject({ method: 'POST', url: '/api/auth/logout', headers });

eachDatabase({ title: 'auth: register, login, logout, sessions', fleet: 'sessions used across instances; the slow-down in Redis' }, (ctx: Ctx) => {
  let ann: Account;
  before(async () => {
    ann = await register(ctx.app, 'ann');
  });

  test('register is 201 { user } with the public fields only, and signs the new user in', async () => {
    const res = await registerRaw(ctx, { username: 'Newbie', password: PASSWORD, email: 'newbie@example.com' });
    assert.equal(res.statusCode, 201, res.body);
    const { user } = res.json();
    assert.deepEqual(Object.keys(res.json()), ['user']);
    assert.deepEqual(Object.keys(user).sort(), ['createdAt', 'id', 'role', 'tier', 'username']);
    assert.equal(typeof user.id, 'string');
    assert.match(user.id, /^\d+$/);
    assert.deepEqual(
      { ...user, id: undefined },
      { id: undefined, username: 'Newbie', role: 'user', tier: 'free', createdAt: new Date(ctx.clock.now()).toISOString() },
    );
    assert.match(user.createdAt, ISO_MS);
    const mine = await me(ctx.app, cookieHeader(sessionToken(res)!));
    assert.equal(mine.statusCode, 200);
    assert.deepEqual(mine.json(), { user });
  });

  test('the session cookie is HttpOnly, SameSite=Lax, not Secure over plain HTTP, and carries >= 256 random bits', async () => {
    const res = await login(ctx.app, 'ann', PASSWORD, { 'x-forwarded-proto': 'https' });
    const cookie = sessionCookieOf(res)!;
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Lax');
    assert.equal(cookie.path, '/');
    assert.ok(!cookie.secure, 'X-Forwarded-Proto is not trusted without TRUST_PROXY, so the request was plain HTTP');
    assert.match(cookie.value, /^[A-Za-z0-9_-]{43,}$/);
    const again = sessionCookieOf(await login(ctx.app, 'ann', PASSWORD))!;
    assert.notEqual(again.value, cookie.value, 'every sign-in gets a fresh token');
  });

  test('only the sha256 of a session token is stored', async () => {
    const rows = await ctx.database.selectFrom('sessions').selectAll().where('user_id', '=', Number(ann.id)).execute();
    assert.ok(rows.length >= 1);
    assert.ok(
      rows.some((r) => r.token_hash === sha256Hex(ann.token)),
      'the stored hash is sha256(token)',
    );
    const dump = JSON.stringify(await ctx.database.selectFrom('sessions').selectAll().execute());
    assert.ok(!dump.includes(ann.token), 'the raw token is nowhere in the sessions table');
  });

  test('login is 200 { user } in any letter case of the name; the new session works', async () => {
    const res = await login(ctx.app, 'ANN', PASSWORD);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { user: { id: ann.id, username: 'ann', role: 'user', tier: 'free', createdAt: new Date(ctx.clock.now()).toISOString() } });
    const mine = await me(ctx.app, cookieHeader(sessionToken(res)!));
    assert.equal(mine.json().user.username, 'ann');
  });

  test('a wrong password and an unknown user give the same 401, with no session', async () => {
    const wrong = await login(ctx.app, 'ann', 'not the password');
    const unknown = await login(ctx.app, 'nobody-here', 'not the password');
    assertError(wrong, 401);
    assert.equal(unknown.statusCode, wrong.statusCode);
    assert.deepEqual(unknown.json(), wrong.json());
    assert.equal(sessionToken(wrong), undefined);
    assert.equal(sessionToken(unknown), undefined);
    await loginOk(ctx.app, 'ann'); // clears ann's failure count for later tests
  });

  test('GET /api/auth/me without a session, or with a made-up token, is 401', async () => {
    assertError(await me(ctx.app, {}), 401);
    assertError(await me(ctx.app, cookieHeader('A'.repeat(43))), 401);
  });

  test('GET /api/auth/session answers a visitor, a stale cookie and a signed-out session with 200 { user: null }, a member with the user', async () => {
    const session = (headers: Record<string, string>) => ctx.app.inject({ method: 'GET', url: '/api/auth/session', headers });
    for (const headers of [{}, cookieHeader('A'.repeat(43))]) {
      const res = await session(headers);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { user: null });
    }
    const s = await loginOk(ctx.app, 'ann');
    const signedIn = await session(s);
    assert.equal(signedIn.statusCode, 200);
    assert.deepEqual(signedIn.json(), (await me(ctx.app, s)).json());
    assert.equal(signedIn.json().user.username, 'ann');
    await logout(ctx, s);
    assert.deepEqual((await session(s)).json(), { user: null });
    // A bad API key is an error on every route, this one too.
    assertError(await session({ 'x-api-key': 'ib_not_a_key' }), 401);
  });

  test('logout is 200 { message }, ends that session on the server at once, and leaves other sessions alone', async () => {
    const a = await loginOk(ctx.app, 'ann');
    const b = await loginOk(ctx.app, 'ann');
    const res = await logout(ctx, a);
    assert.equal(res.statusCode, 200);
    assert.equal(typeof res.json().message, 'string');
    assertError(await me(ctx.app, a), 401);
    const token = a.cookie.split('=')[1];
    const row = await ctx.database.selectFrom('sessions').select('id').where('token_hash', '=', sha256Hex(token)).executeTakeFirst();
    assert.equal(row, undefined, 'the session row is gone');
    assert.equal((await me(ctx.app, b)).statusCode, 200);
  });

  test('a cookie-authenticated write whose Origin names another site is 403; same-site or no Origin is allowed', async () => {
    const s = await loginOk(ctx.app, 'ann');
    for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'null']) {
      const res = await ctx.app.inject({ method: 'PATCH', url: '/api/users/me', headers: { ...s, origin }, payload: { bio: 'pwned' } });
      assertError(res, 403);
      assertError(await logout(ctx, { ...s, origin }), 403);
    }
    assert.equal((await me(ctx.app, s)).statusCode, 200, 'the refused logout did not end the session');
    const profile = await ctx.app.inject({ method: 'GET', url: '/api/users/ann' });
    assert.notEqual(profile.json().bio, 'pwned');

    const same = await ctx.app.inject({ method: 'PATCH', url: '/api/users/me', headers: { ...s, origin: 'http://localhost' }, payload: { bio: 'same site' } });
    assert.equal(same.statusCode, 200, same.body);
    const none = await ctx.app.inject({ method: 'PATCH', url: '/api/users/me', headers: s, payload: { bio: 'no origin' } });
    assert.equal(none.statusCode, 200, none.body);
    assert.equal((await logout(ctx, { ...s, origin: 'http://localhost:80' })).statusCode, 200);
    assertError(await me(ctx.app, s), 401);
  });

  test('a session made by one app instance is accepted by a second on the same database', async () => {
    const second = await anotherInstance(ctx);
    try {
      const s = await loginOk(ctx.app, 'ann');
      const res = await me(second, s);
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().user.username, 'ann');
      const fromSecond = await loginOk(second, 'ann');
      assert.equal((await me(ctx.app, fromSecond)).statusCode, 200);
      assert.equal((await second.inject({ method: 'POST', url: '/api/auth/logout', headers: s })).statusCode, 200);
      assertError(await me(ctx.app, s), 401);
    } finally {
      await second.close();
    }
  });

  test('usernames must be 3-32 of A-Z a-z 0-9 _ . - and passwords 8-256 characters; each error names the field', async () => {
    assertBadField(await registerRaw(ctx, { username: 'ab', password: PASSWORD }), 'username');
    assertBadField(await registerRaw(ctx, { username: 'a'.repeat(33), password: PASSWORD }), 'username');
    for (const bad of ['has space', 'semi;colon', 'ünï', 'a/b', '<b>x</b>']) {
      assertBadField(await registerRaw(ctx, { username: bad, password: PASSWORD }), 'username');
    }
    assertBadField(await registerRaw(ctx, { username: 'shortpw', password: 'x'.repeat(7) }), 'password');
    assertBadField(await registerRaw(ctx, { username: 'longpw', password: 'x'.repeat(257) }), 'password');
    assertBadField(await registerRaw(ctx, { password: PASSWORD }), 'username');
    assertBadField(await registerRaw(ctx, { username: 'nopw' }), 'password');
    const rows = await ctx.database.selectFrom('users').select('username').where('username', 'in', ['ab', 'shortpw', 'longpw', 'nopw']).execute();
    assert.deepEqual(rows, [], 'nothing was created');
    // The limits themselves are accepted.
    assert.equal((await registerRaw(ctx, { username: 'a.b', password: 'x'.repeat(8) })).statusCode, 201);
    assert.equal((await registerRaw(ctx, { username: `Z_-.${'9'.repeat(28)}`, password: 'y'.repeat(256) })).statusCode, 201);
  });

  test('a taken username is 409, in any letter case, and the original account is untouched', async () => {
    const res = await registerRaw(ctx, { username: 'ann', password: 'another password' });
    assertError(res, 409);
    assertError(await registerRaw(ctx, { username: 'ANN', password: 'another password' }), 409);
    assert.equal((await login(ctx.app, 'ann', 'another password')).statusCode, 401);
    await loginOk(ctx.app, 'ann');
  });

  test('after 5 failed sign-ins the next is 429 with Retry-After, even with the right password; the wait ends and a success clears the count', async () => {
    await register(ctx.app, 'target');
    for (let i = 0; i < 5; i++) assertError(await login(ctx.app, 'target', `wrong-${i}-password`), 401);
    const blocked = await login(ctx.app, 'target', PASSWORD);
    assertError(blocked, 429);
    const wait = Number(blocked.headers['retry-after']);
    assert.ok(Number.isInteger(wait) && wait >= 1, `Retry-After header: ${blocked.headers['retry-after']}`);
    assert.equal(blocked.json().retryAfter, wait);
    assert.equal(sessionToken(blocked), undefined);
    assertError(await login(ctx.app, 'TARGET', PASSWORD), 429);

    ctx.clock.advance(wait * 1000 + 1);
    assert.equal((await login(ctx.app, 'target', PASSWORD)).statusCode, 200, 'the real owner gets in once the wait is over');
    // The success cleared the count: four more failures are free again.
    for (let i = 0; i < 4; i++) assertError(await login(ctx.app, 'target', `wrong-again-${i}`), 401);
    assert.equal((await login(ctx.app, 'target', PASSWORD)).statusCode, 200);
  });

  test('guesses sent all at once are slowed down too: at most 5 are checked before the 429s start', async () => {
    await register(ctx.app, 'burst');
    const res = await Promise.all(Array.from({ length: 20 }, (_, i) => login(ctx.app, 'burst', `parallel-guess-${i}`)));
    const checked = res.filter((r) => r.statusCode === 401).length;
    assert.equal(checked, 5, `statuses: ${res.map((r) => r.statusCode).join(',')}`);
    assert.ok(res.every((r) => r.statusCode === 401 || r.statusCode === 429));
    assertError(await login(ctx.app, 'burst', PASSWORD), 429);
  });

  test('the slow-down for an unknown name looks exactly like the one for a real account', async () => {
    await register(ctx.app, 'realname');
    for (let i = 0; i < 5; i++) {
      await login(ctx.app, 'realname', `wrong-${i}-password`);
      await login(ctx.app, 'ghostname', `wrong-${i}-password`);
    }
    const real = await login(ctx.app, 'realname', 'wrong-again-pw');
    const ghost = await login(ctx.app, 'ghostname', 'wrong-again-pw');
    assertError(real, 429);
    assert.equal(ghost.statusCode, real.statusCode);
    assert.deepEqual(ghost.json(), real.json());
    assert.equal(ghost.headers['retry-after'], real.headers['retry-after']);
  });
});

eachDatabase(
  'auth: behind a trusted HTTPS proxy (TRUST_PROXY=true)',
  (ctx: Ctx) => {
    test('the session cookie is Secure when the request came over HTTPS, and not when it did not', async () => {
      const res = await registerRaw(ctx, { username: 'secure', password: PASSWORD }, { 'x-forwarded-proto': 'https' });
      assert.equal(res.statusCode, 201);
      const cookie = sessionCookieOf(res)!;
      assert.equal(cookie.secure, true);
      assert.equal(cookie.httpOnly, true);
      assert.equal(cookie.sameSite, 'Lax');
      assert.match(String(res.headers['set-cookie']), /;\s*Secure/i);
      const plain = await login(ctx.app, 'secure', PASSWORD, { 'x-forwarded-proto': 'http' });
      assert.equal(plain.statusCode, 200);
      assert.ok(!sessionCookieOf(plain)!.secure);
    });

    test('the Origin check compares against the public host the proxy forwarded', async () => {
      const s = await loginOk(ctx.app, 'secure');
      const headers = { ...s, host: '127.0.0.1:3000', 'x-forwarded-host': 'board.example', 'x-forwarded-proto': 'https' };
      const ok = await ctx.app.inject({
        method: 'PATCH',
        url: '/api/users/me',
        headers: { ...headers, origin: 'https://board.example' },
        payload: { bio: 'hi' },
      });
      assert.equal(ok.statusCode, 200, ok.body);
      const evil = await ctx.app.inject({
        method: 'PATCH',
        url: '/api/users/me',
        headers: { ...headers, origin: 'https://evil.example' },
        payload: { bio: 'x' },
      });
      assertError(evil, 403);
    });
  },
  { trustProxy: 'true' },
);
