import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, type Ctx } from '../../../test/helpers.ts';
import {
  ISO_MS,
  assertBadField,
  assertError,
  createKey,
  createKeyOk,
  listKeys,
  register,
  revokeKey,
  setAccount,
  sha256Hex,
  type Account,
} from '../../../test/auth-helpers.ts';

const KEY_SHAPE = /^ib_[A-Za-z0-9_-]{43}$/;
const CAPS = { free: 0, basic: 1, pro: 3, enterprise: 5 } as const;
const keyHeader = (key: string) => ({ 'x-api-key': key });

eachDatabase('api keys: create, list, revoke, tier caps', (ctx: Ctx) => {
  let basic: Account; // tier basic
  let pro: Account; // tier pro
  let other: Account; // tier enterprise, owns keys nobody else may touch
  let otherKey: { id: string; key: string };

  before(async () => {
    basic = await register(ctx.app, 'basicbob');
    pro = await register(ctx.app, 'propat');
    other = await register(ctx.app, 'otto');
    await setAccount(ctx.database, 'basicbob', { tier: 'basic' });
    await setAccount(ctx.database, 'propat', { tier: 'pro' });
    await setAccount(ctx.database, 'otto', { tier: 'enterprise' });
    otherKey = await createKeyOk(ctx.app, other.headers, 'otto key');
  });

  test('create is 201 { id, key, name, createdAt } with an ib_ + 43 base64url secret; only its hash is stored', async () => {
    const res = await createKey(ctx.app, basic.headers, '  laptop  ');
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.equal(typeof body.id, 'string');
    assert.match(body.key, KEY_SHAPE);
    assert.equal(body.name, 'laptop', 'surrounding spaces are trimmed');
    assert.equal(body.createdAt, new Date(ctx.clock.now()).toISOString());
    const dump = JSON.stringify(await ctx.database.selectFrom('api_keys').selectAll().execute());
    assert.ok(!dump.includes(body.key), 'the secret is nowhere in the api_keys table');
    assert.ok(!dump.includes(body.key.slice(3)), 'not even without its prefix');
    const row = await ctx.database.selectFrom('api_keys').select('key_hash').where('id', '=', Number(body.id)).executeTakeFirstOrThrow();
    assert.equal(row.key_hash, sha256Hex(body.key));
  });

  test('the list never shows the secret; lastUsed is null until the key is used on any endpoint', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/user/api-keys', headers: basic.headers });
    assert.equal(res.statusCode, 200);
    const [laptop] = res.json().keys;
    assert.deepEqual({ name: laptop.name, isActive: laptop.isActive, lastUsed: laptop.lastUsed }, { name: 'laptop', isActive: true, lastUsed: null });
    assert.match(laptop.createdAt, ISO_MS);
    assert.equal(typeof laptop.id, 'string');
    assert.ok(!('key' in laptop));

    const secret = (await createKeyOk(ctx.app, pro.headers, 'tracked')).key;
    assert.ok(!(await ctx.app.inject({ method: 'GET', url: '/api/user/api-keys', headers: pro.headers })).body.includes(secret.slice(3)));
    assert.equal((await listKeys(ctx.app, pro.headers))[0].lastUsed, null);
    ctx.clock.advance(90_000);
    const used = await ctx.app.inject({ method: 'GET', url: '/api/posts', headers: keyHeader(secret) });
    assert.equal(used.statusCode, 200);
    const [tracked] = await listKeys(ctx.app, pro.headers);
    assert.equal(tracked.lastUsed, new Date(ctx.clock.now()).toISOString());
    assert.ok(Date.parse(tracked.lastUsed!) > Date.parse(tracked.createdAt));
    ctx.clock.advance(5 * 60_000);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api', headers: keyHeader(secret) })).statusCode, 200);
    assert.equal((await listKeys(ctx.app, pro.headers))[0].lastUsed, new Date(ctx.clock.now()).toISOString(), 'a later use moves it on');
  });

  test('all three endpoints accept X-API-Key as well as a session; without either they are 401', async () => {
    const first = await createKeyOk(ctx.app, pro.headers, 'by session');
    const second = await createKeyOk(ctx.app, keyHeader(first.key), 'by key');
    const names = (await listKeys(ctx.app, keyHeader(second.key))).map((k) => k.name);
    assert.ok(names.includes('by session') && names.includes('by key'));
    assert.deepEqual(await listKeys(ctx.app, keyHeader(first.key)), await listKeys(ctx.app, pro.headers));
    assert.equal((await revokeKey(ctx.app, keyHeader(first.key), second.id)).statusCode, 200);
    assert.equal((await revokeKey(ctx.app, pro.headers, first.id)).statusCode, 200);
    const byId = new Map((await listKeys(ctx.app, pro.headers)).map((k) => [k.id, k.isActive]));
    assert.deepEqual([byId.get(first.id), byId.get(second.id)], [false, false]);

    assertError(await createKey(ctx.app, {}, 'anon'), 401);
    assertError(await ctx.app.inject({ method: 'GET', url: '/api/user/api-keys' }), 401);
    assertError(await revokeKey(ctx.app, {}, otherKey.id), 401);
  });

  test('revoking keeps the key listed as inactive, again is 200, and the key is then 401 everywhere', async () => {
    const k = await createKeyOk(ctx.app, pro.headers, 'doomed');
    const res = await revokeKey(ctx.app, pro.headers, k.id);
    assert.equal(res.statusCode, 200);
    assert.equal(typeof res.json().message, 'string');
    const listed = (await listKeys(ctx.app, pro.headers)).find((x) => x.id === k.id);
    assert.equal(listed?.isActive, false);
    assert.equal((await revokeKey(ctx.app, pro.headers, k.id)).statusCode, 200, 'revoking your own revoked key again');
    assert.equal((await listKeys(ctx.app, pro.headers)).find((x) => x.id === k.id)?.isActive, false);

    for (const [method, url] of [
      ['GET', '/api/posts'],
      ['GET', '/api'],
      ['GET', '/api/no-such-route'],
      ['GET', '/api/user/api-keys'],
      ['POST', '/api/auth/logout'],
      ['GET', '/nothing-here'],
    ] as const) {
      const r = await ctx.app.inject({ method, url, headers: keyHeader(k.key) });
      assertError(r, 401);
      assert.deepEqual(Object.keys(r.json()).sort(), ['error', 'status'], `${method} ${url}`);
    }
  });

  test('an unknown key is 401 on any endpoint, public ones included; no key at all is anonymous access', async () => {
    for (const key of [`ib_${'A'.repeat(43)}`, 'nonsense', '', 'x'.repeat(500)]) {
      for (const url of ['/api/posts', '/api', '/api/definitely-unknown']) {
        assertError(await ctx.app.inject({ method: 'GET', url, headers: keyHeader(key) }), 401);
      }
    }
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/posts' })).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api' })).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/definitely-unknown' })).statusCode, 404);
  });

  test('a key that is not yours, or does not exist, is 404 and stays active', async () => {
    assertError(await revokeKey(ctx.app, pro.headers, otherKey.id), 404);
    assertError(await revokeKey(ctx.app, pro.headers, '999999'), 404);
    assertError(await revokeKey(ctx.app, pro.headers, 'abc'), 404);
    const otto = await listKeys(ctx.app, other.headers);
    assert.equal(otto.find((k) => k.id === otherKey.id)?.isActive, true);
    assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/posts', headers: keyHeader(otherKey.key) })).statusCode, 200);
  });

  test('bad key names and key ids are 400 naming the field', async () => {
    for (const payload of [{}, { name: '' }, { name: '    ' }, { name: 'n'.repeat(65) }, { name: 42 }]) {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/user/api-keys', headers: other.headers, payload });
      assertBadField(res, 'name');
    }
    assertBadField(await revokeKey(ctx.app, other.headers, Number(otherKey.id)), 'keyId');
    assertBadField(await ctx.app.inject({ method: 'DELETE', url: '/api/user/api-keys', headers: other.headers, payload: {} }), 'keyId');
    assert.equal((await listKeys(ctx.app, other.headers)).find((k) => k.id === otherKey.id)?.isActive, true);
    const longest = await createKey(ctx.app, other.headers, 'n'.repeat(64));
    assert.equal(longest.statusCode, 201, '64 characters is allowed');
  });

  test('active keys are capped by tier (free 0, basic 1, pro 3, enterprise 5): one more is 403 naming the tier and cap', async () => {
    const capped = await register(ctx.app, 'capper');
    for (const [tier, cap] of Object.entries(CAPS)) {
      await setAccount(ctx.database, 'capper', { tier });
      for (const k of await listKeys(ctx.app, capped.headers)) if (k.isActive) await revokeKey(ctx.app, capped.headers, k.id);
      for (let i = 0; i < cap; i++) await createKeyOk(ctx.app, capped.headers, `${tier} ${i}`);
      const over = await createKey(ctx.app, capped.headers, `${tier} one too many`);
      assertError(over, 403);
      assert.match(over.json().error, new RegExp(`\\b${tier}\\b`, 'i'));
      assert.match(over.json().error, new RegExp(`\\b${cap}\\b`));
      const active = (await listKeys(ctx.app, capped.headers)).filter((k) => k.isActive);
      assert.equal(active.length, cap, `${tier}: no key was created past the cap`);
    }
  });

  test("the free tier's 403 says how a tier is obtained: an admin sets it, by the API or the CLI", async () => {
    const free = await register(ctx.app, 'freefran');
    const over = await createKey(ctx.app, free.headers, 'first');
    assertError(over, 403);
    const { error } = over.json();
    assert.match(error, /free tier allows 0 active API keys/);
    assert.doesNotMatch(error, /revoke one/, 'a free user has nothing to revoke');
    assert.match(error, /PUT \/api\/admin\/users\/freefran/);
    assert.match(error, /imageboard user set-tier freefran basic/);
  });

  test('an admin on a tier without keys is told to raise their own, not to ask an admin', async () => {
    const admin = await register(ctx.app, 'adminada');
    await setAccount(ctx.database, 'adminada', { role: 'admin' });
    const over = await createKey(ctx.app, admin.headers, 'first');
    assertError(over, 403);
    const { error } = over.json();
    assert.match(error, /free tier allows 0 active API keys; as an admin, raise your own tier/);
    assert.doesNotMatch(error, /ask an admin/);
    assert.match(error, /imageboard user set-tier adminada enterprise/);
  });

  test('the second key on basic is 403; revoking the first frees the slot', async () => {
    const over = await createKey(ctx.app, basic.headers, 'second');
    assertError(over, 403);
    assert.match(over.json().error, /basic/i);
    const [laptop] = await listKeys(ctx.app, basic.headers);
    assert.equal((await revokeKey(ctx.app, basic.headers, laptop.id)).statusCode, 200);
    const again = await createKeyOk(ctx.app, basic.headers, 'second');
    assert.match(again.key, KEY_SHAPE);
    const keys = await listKeys(ctx.app, basic.headers);
    assert.deepEqual(keys.map((k) => [k.name, k.isActive]).sort(), [
      ['laptop', false],
      ['second', true],
    ]);
  });
});
