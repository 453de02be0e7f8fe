import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp, type App } from '../../app.ts';
import { testConfig } from '../../config.ts';
import { eachDatabase, TestClock, type Ctx } from '../../../test/helpers.ts';
import {
  assertBadField,
  assertError,
  createKey,
  createKeyOk,
  listKeys,
  login,
  loginOk,
  me,
  register,
  setAccount,
  type Account,
} from '../../../test/auth-helpers.ts';
import { userCommand } from '../../cli/user.ts';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const put = (app: App, username: string, headers: Record<string, string>, payload?: unknown) =>
  app.inject({ method: 'PUT', url: `/api/admin/users/${username}`, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

/** Creates 3 keys a minute apart on a pro account, then returns them oldest first. */
async function threeKeys(app: App, clock: TestClock, headers: Record<string, string>) {
  const made = [];
  for (const name of ['oldest', 'middle', 'newest']) {
    made.push(await createKeyOk(app, headers, name));
    clock.advance(60_000);
  }
  return made;
}

const activeNames = async (app: App, headers: Record<string, string>) =>
  (await listKeys(app, headers))
    .filter((k) => k.isActive)
    .map((k) => k.name)
    .sort();

eachDatabase('admin: PUT /api/admin/users/<username>', (ctx: Ctx) => {
  let admin: Account;
  let mod: Account;
  let carol: Account;

  before(async () => {
    admin = await register(ctx.app, 'root');
    mod = await register(ctx.app, 'mod');
    carol = await register(ctx.app, 'carol');
    await setAccount(ctx.database, 'root', { role: 'admin' });
    await setAccount(ctx.database, 'mod', { role: 'moderator' });
  });

  test('anonymous is 401; a user or a moderator is 403; nothing changes', async () => {
    assertError(await put(ctx.app, 'carol', {}, { tier: 'pro' }), 401);
    assertError(await put(ctx.app, 'carol', carol.headers, { tier: 'pro' }), 403);
    assertError(await put(ctx.app, 'carol', mod.headers, { tier: 'pro', role: 'admin' }), 403);
    assertError(await put(ctx.app, 'mod', mod.headers, { role: 'admin' }), 403);
    assert.equal((await me(ctx.app, carol.headers)).json().user.tier, 'free');
    assert.equal((await me(ctx.app, mod.headers)).json().user.role, 'moderator');
  });

  test('an admin sets tier and role; the user sees the change at once', async () => {
    const res = await put(ctx.app, 'Carol', admin.headers, { tier: 'pro', role: 'moderator' });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual({ ...res.json().user, createdAt: undefined }, { id: carol.id, username: 'carol', role: 'moderator', tier: 'pro', createdAt: undefined });
    const mine = (await me(ctx.app, carol.headers)).json().user;
    assert.deepEqual([mine.role, mine.tier], ['moderator', 'pro']);
    const roleOnly = await put(ctx.app, 'carol', admin.headers, { role: 'user' });
    assert.deepEqual([roleOnly.json().user.role, roleOnly.json().user.tier], ['user', 'pro'], 'tier left alone');
    const tierOnly = await put(ctx.app, 'carol', admin.headers, { tier: 'basic' });
    assert.deepEqual([tierOnly.json().user.role, tierOnly.json().user.tier], ['user', 'basic'], 'role left alone');
  });

  test('a user made admin may then use the endpoint, and loses it when demoted', async () => {
    assert.equal((await put(ctx.app, 'mod', admin.headers, { role: 'admin' })).statusCode, 200);
    assert.equal((await put(ctx.app, 'carol', mod.headers, { tier: 'enterprise' })).statusCode, 200);
    assert.equal((await put(ctx.app, 'mod', admin.headers, { role: 'moderator' })).statusCode, 200);
    assertError(await put(ctx.app, 'carol', mod.headers, { tier: 'free' }), 403);
  });

  test("the board's last admin cannot lose the role (409); with a second admin either may step down", async () => {
    const last = await put(ctx.app, 'root', admin.headers, { role: 'moderator' });
    assertError(last, 409);
    assert.match(last.json().error, /last admin/);
    assert.equal((await me(ctx.app, admin.headers)).json().user.role, 'admin', 'still an admin');
    assert.equal((await put(ctx.app, 'carol', admin.headers, { role: 'admin' })).statusCode, 200);
    assert.equal((await put(ctx.app, 'root', admin.headers, { role: 'user', tier: 'pro' })).statusCode, 200, 'two admins: one may step down');
    assertError(await put(ctx.app, 'carol', carol.headers, { role: 'user' }), 409);
    assert.equal((await put(ctx.app, 'root', carol.headers, { role: 'admin' })).statusCode, 200);
    assert.equal((await put(ctx.app, 'carol', admin.headers, { role: 'user' })).statusCode, 200);
  });

  test('an unknown user is 404; bad values, unknown fields or an empty body are 400', async () => {
    assertError(await put(ctx.app, 'nobody', admin.headers, { tier: 'pro' }), 404);
    assertBadField(await put(ctx.app, 'carol', admin.headers, { tier: 'gold' }), 'tier');
    assertBadField(await put(ctx.app, 'carol', admin.headers, { role: 'owner' }), 'role');
    assertBadField(await put(ctx.app, 'carol', admin.headers, { tier: 5 }), 'tier');
    assertBadField(await put(ctx.app, 'carol', admin.headers, { tier: 'pro', karma: 9 }), 'karma');
    assertError(await put(ctx.app, 'carol', admin.headers, {}), 400);
    assertError(await put(ctx.app, 'carol', admin.headers), 400);
    assertError(await put(ctx.app, 'carol', admin.headers, { tier: null }), 400);
    assert.equal((await me(ctx.app, carol.headers)).json().user.tier, 'enterprise', 'nothing changed');
  });

  test('lowering the tier revokes the newest active keys beyond the new cap', async () => {
    await put(ctx.app, 'carol', admin.headers, { tier: 'pro' });
    const [oldest] = await threeKeys(ctx.app, ctx.clock, carol.headers);
    const down = await put(ctx.app, 'carol', admin.headers, { tier: 'basic' });
    assert.equal(down.statusCode, 200);
    assert.equal(down.json().revokedKeys, 2);
    assert.deepEqual(await activeNames(ctx.app, carol.headers), ['oldest']);
    assert.equal((await listKeys(ctx.app, carol.headers)).length, 3, 'revoked keys stay listed');
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/posts', headers: { 'x-api-key': oldest.key } })).statusCode, 200);
    assertError(await createKey(ctx.app, carol.headers, 'fourth'), 403);

    const up = await put(ctx.app, 'carol', admin.headers, { tier: 'enterprise' });
    assert.equal(up.json().revokedKeys, 0);
    assert.deepEqual(await activeNames(ctx.app, carol.headers), ['oldest'], 'raising the tier revives nothing');
    assert.equal((await put(ctx.app, 'carol', admin.headers, { tier: 'free' })).json().revokedKeys, 1);
    assert.deepEqual(await activeNames(ctx.app, carol.headers), []);
    assertError(await ctx.app.inject({ method: 'GET', url: '/api/posts', headers: { 'x-api-key': oldest.key } }), 401);
  });
});

/** Runs `imageboard user ...` in this process, capturing what it writes. */
async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = process.stdout.write;
  const stderr = process.stderr.write;
  // Strings are the command's; the test runner's own reports (Buffers) pass through untouched.
  const grab = (sink: string[], stream: NodeJS.WriteStream, original: typeof stdout) =>
    ((chunk: unknown, ...rest: any[]) => {
      if (typeof chunk !== 'string') return original.call(stream, chunk as any, ...rest);
      sink.push(chunk);
      return true;
    }) as typeof stdout;
  process.stdout.write = grab(out, process.stdout, stdout);
  process.stderr.write = grab(err, process.stderr, stderr);
  try {
    return { code: await userCommand(args), out: out.join(''), err: err.join('') };
  } finally {
    process.stdout.write = stdout;
    process.stderr.write = stderr;
  }
}

describe('admin: the `imageboard user` command', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imageboard-cli-'));
  const clock = new TestClock();
  let app: App;

  before(async () => {
    process.env.DATA_DIR = dataDir;
    process.env.DATABASE_URL = '';
    app = await buildApp(testConfig({ dataDir }), { clock });
    await app.ready();
  });
  after(async () => {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('user create makes an account (with --role and --tier) that signs in through the API', async () => {
    const res = await cli('create', 'Dave', 'dave-password-1', '--role', 'admin', '--tier', 'pro');
    assert.equal(res.code, 0, res.err);
    assert.match(res.out, /Dave/);
    const signIn = await login(app, 'dave', 'dave-password-1');
    assert.equal(signIn.statusCode, 200, signIn.body);
    assert.deepEqual([signIn.json().user.username, signIn.json().user.role, signIn.json().user.tier], ['Dave', 'admin', 'pro']);
    const row = await app.deps.db.selectFrom('users').select('password_hash').where('username', '=', 'Dave').executeTakeFirstOrThrow();
    assert.ok(!row.password_hash.includes('dave-password-1'));

    assert.equal((await cli('create', 'eve', 'eve-password')).code, 0);
    const eve = (await login(app, 'eve', 'eve-password')).json().user;
    assert.deepEqual([eve.role, eve.tier], ['user', 'free'], 'defaults');
  });

  test('user create refuses bad input with exit code 2 and a taken name with 1, creating nothing', async () => {
    for (const [args, field] of [
      [['ab', 'long-enough-pw'], 'username'],
      [['bad name', 'long-enough-pw'], 'username'],
      [['frank', 'short'], 'password'],
      [['frank', 'long-enough-pw', '--role', 'owner'], 'role'],
      [['frank', 'long-enough-pw', '--tier', 'gold'], 'tier'],
    ] as const) {
      const res = await cli('create', ...args);
      assert.equal(res.code, 2, `${args.join(' ')}: ${res.err}`);
      assert.match(res.err, new RegExp(field));
    }
    const taken = await cli('create', 'DAVE', 'another-password');
    assert.equal(taken.code, 1);
    assert.match(taken.err, /taken/);
    const names = (await app.deps.db.selectFrom('users').select('username').execute()).map((u) => u.username).sort();
    assert.deepEqual(names, ['Dave', 'eve']);
    assert.equal((await login(app, 'dave', 'another-password')).statusCode, 401);
  });

  test('user set-role and set-tier change the account; the API sees it at once', async () => {
    const eve = await loginOk(app, 'eve', 'eve-password');
    assert.equal((await cli('set-role', 'eve', 'admin')).code, 0);
    assert.equal((await cli('set-tier', 'EVE', 'enterprise')).code, 0);
    assert.deepEqual([(await me(app, eve)).json().user.role, (await me(app, eve)).json().user.tier], ['admin', 'enterprise']);
    assert.equal((await put(app, 'dave', eve, { tier: 'pro' })).statusCode, 200, 'eve now acts as an admin');
    assert.equal((await cli('set-role', 'eve', 'user')).code, 0);
    assertError(await put(app, 'dave', eve, { tier: 'pro' }), 403);
  });

  test('set-tier to a lower tier revokes the newest keys beyond the cap', async () => {
    const dave = await loginOk(app, 'dave', 'dave-password-1');
    await threeKeys(app, clock, dave);
    const res = await cli('set-tier', 'dave', 'basic');
    assert.equal(res.code, 0, res.err);
    assert.match(res.out, /revoked 2/);
    assert.deepEqual(await activeNames(app, dave), ['oldest']);
  });

  test('bad values, unknown users and bad usage fail with a message and a non-zero exit code', async () => {
    for (const [args, code, pattern] of [
      [['set-tier', 'dave', 'gold'], 2, /tier must be one of/],
      [['set-role', 'dave', 'owner'], 2, /role must be one of/],
      [['set-tier', 'ghost', 'pro'], 1, /ghost/],
      [['set-role', 'ghost', 'admin'], 1, /ghost/],
      [['set-tier', 'dave'], 2, /Usage/],
      [['delete', 'dave'], 2, /Usage/],
      [[], 2, /Usage/],
    ] as const) {
      const res = await cli(...args);
      assert.equal(res.code, code, `${args.join(' ')}: ${res.err}`);
      assert.match(res.err, pattern);
    }
    const dave = (await login(app, 'dave', 'dave-password-1')).json().user;
    assert.deepEqual([dave.role, dave.tier], ['admin', 'basic']);
  });

  test('the installed entry point (bin/imageboard.js) runs the command with exit codes', async () => {
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' };
    const ok = spawnSync(process.execPath, ['bin/imageboard.js', 'user', 'set-role', 'eve', 'moderator'], { cwd: ROOT, env, encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stderr);
    assert.match(ok.stdout, /eve: role moderator/);
    const row = await app.deps.db.selectFrom('users').select('role').where('username', '=', 'eve').executeTakeFirstOrThrow();
    assert.equal(row.role, 'moderator');
    const missing = spawnSync(process.execPath, ['bin/imageboard.js', 'user', 'set-tier', 'ghost', 'pro'], { cwd: ROOT, env, encoding: 'utf8' });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /ghost/);
  });
});
