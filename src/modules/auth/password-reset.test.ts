import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandEnv, eachDatabase, type Ctx } from '../../../test/helpers.ts';
import { assertBadField, assertError, createKeyOk, login, loginOk, me, PASSWORD, register, setAccount } from '../../../test/auth-helpers.ts';
import { userCommand } from '../../cli/user.ts';

const NEW_PASSWORD = 'a brand new password';

/** `imageboard user ...` against the suite's board; its exit code and output. */
async function userCli(ctx: Ctx, args: string[], env: Record<string, string> = { PUBLIC_URL: 'https://board.example.org/' }) {
  let out = '';
  let err = '';
  const io = { env: { ...(await commandEnv(ctx)), ...env }, out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } };
  const code = await userCommand(args, io);
  return { code, out, err };
}

/** The token of a freshly printed link for the user (asserting the command's output). */
async function resetToken(ctx: Ctx, username: string): Promise<string> {
  const res = await userCli(ctx, ['reset-password', username]);
  assert.equal(res.code, 0, res.err);
  const m = res.out.match(/^https:\/\/board\.example\.org\/reset\?token=([A-Za-z0-9_-]{43})\n/);
  assert.ok(m, `a whole link on the first line: ${res.out}`);
  assert.match(res.out, /works once, until \d{4}-\d\d-\d\dT/);
  return m[1];
}

const reset = (ctx: Ctx, token: string, password = NEW_PASSWORD, headers: Record<string, string> = {}) =>
  ctx.app.inject({ method: 'POST', url: '/api/auth/reset', payload: { token, password }, headers });

eachDatabase({ title: 'password reset: imageboard user reset-password and POST /api/auth/reset', fleet: 'sessions and slow-down of every instance' }, (ctx) => {
  test('the link sets the password, ends every session, keeps API keys, and works once', async () => {
    ctx.clock.t = Date.now(); // the command dates its link by the wall clock
    const alice = await register(ctx.app, 'alice');
    const other = await loginOk(ctx.app, 'alice');
    await setAccount(ctx.database, 'alice', { tier: 'basic' });
    const key = await createKeyOk(ctx.app, alice.headers);

    const token = await resetToken(ctx, 'ALICE');
    const res = await reset(ctx, token);
    assert.equal(res.statusCode, 200, res.body);
    assert.match(res.json().message, /signed out/);

    for (const headers of [alice.headers, other]) assertError(await me(ctx.app, headers), 401);
    assertError(await login(ctx.app, 'alice', PASSWORD), 401);
    await loginOk(ctx.app, 'alice', NEW_PASSWORD);
    assert.equal((await me(ctx.app, { 'x-api-key': key.key })).statusCode, 200, 'API keys stay active');

    const again = await reset(ctx, token, 'yet another password');
    assertBadField(again, 'token');
    assert.match(again.json().error, /already been used/);
    await loginOk(ctx.app, 'alice', NEW_PASSWORD);
  });

  test('a link works for one hour, and only the newest link of an account works', async () => {
    ctx.clock.t = Date.now();
    await register(ctx.app, 'bob');
    const first = await resetToken(ctx, 'bob');
    const second = await resetToken(ctx, 'bob');
    const superseded = await reset(ctx, first);
    assertBadField(superseded, 'token');
    assert.match(superseded.json().error, /not valid/);

    ctx.clock.advance(59 * 60_000);
    assert.equal((await reset(ctx, second)).statusCode, 200);

    const late = await resetToken(ctx, 'bob');
    ctx.clock.advance(61 * 60_000);
    const expired = await reset(ctx, late, 'too late password');
    assertBadField(expired, 'token');
    assert.match(expired.json().error, /expired/);
    await loginOk(ctx.app, 'bob', NEW_PASSWORD);
  });

  test('a bad password or token is 400 naming the field, and leaves the link usable', async () => {
    ctx.clock.t = Date.now();
    await register(ctx.app, 'carol');
    const token = await resetToken(ctx, 'carol');
    assertBadField(await reset(ctx, token, 'short'), 'password');
    assertBadField(await reset(ctx, 'not-a-token'), 'token');
    const unknown = await reset(ctx, 'x'.repeat(43));
    assertBadField(unknown, 'token');
    assert.match(unknown.json().error, /not valid/);
    await loginOk(ctx.app, 'carol');
    assert.equal((await reset(ctx, token)).statusCode, 200, 'the link still works');
  });

  test('two requests racing with one link: one sets the password, the other is refused', async () => {
    ctx.clock.t = Date.now();
    await register(ctx.app, 'dave');
    const token = await resetToken(ctx, 'dave');
    const results = await Promise.all([reset(ctx, token, 'first racer password'), reset(ctx, token, 'second racer password')]);
    assert.deepEqual(results.map((r) => r.statusCode).sort(), [200, 400], results.map((r) => r.body).join('\n'));
    const winner = results[0].statusCode === 200 ? 'first racer password' : 'second racer password';
    await loginOk(ctx.app, 'dave', winner);
  });

  test('anyone holding the link may use it: the account is the link’s, never the caller’s', async () => {
    ctx.clock.t = Date.now();
    const erin = await register(ctx.app, 'erin');
    await register(ctx.app, 'frank');
    const token = await resetToken(ctx, 'frank');
    assert.equal((await reset(ctx, token, NEW_PASSWORD, erin.headers)).statusCode, 200);
    await loginOk(ctx.app, 'frank', NEW_PASSWORD);
    await loginOk(ctx.app, 'erin');
  });

  test('a reset lifts the sign-in slow-down earlier wrong guesses caused', async () => {
    ctx.clock.t = Date.now();
    await register(ctx.app, 'gina');
    let res = await login(ctx.app, 'gina', 'wrong guess');
    for (let i = 0; i < 8 && res.statusCode !== 429; i++) res = await login(ctx.app, 'gina', 'wrong guess');
    assertError(res, 429);
    assert.equal((await reset(ctx, await resetToken(ctx, 'gina'))).statusCode, 200);
    await loginOk(ctx.app, 'gina', NEW_PASSWORD);
  });

  test('the command: an unknown user is exit 1 and says so; without PUBLIC_URL it prints the path and says why', async () => {
    const unknown = await userCli(ctx, ['reset-password', 'nobody']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /User 'nobody' not found/);
    assert.equal(unknown.out, '');

    await register(ctx.app, 'hank');
    const bare = await userCli(ctx, ['reset-password', 'hank'], {});
    assert.equal(bare.code, 0, bare.err);
    assert.match(bare.out, /^\/reset\?token=[A-Za-z0-9_-]{43}\n/);
    assert.match(bare.err, /PUBLIC_URL is not set/);

    const usage = await userCli(ctx, ['reset-password']);
    assert.equal(usage.code, 2);
    assert.match(usage.err, /reset-password <username>/);
  });
});
