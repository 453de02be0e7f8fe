import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, testUnlessProcs, type Ctx } from '../../../test/helpers.ts';
import { assertBadField, assertError, listKeys, register, setAccount, type Account } from '../../../test/auth-helpers.ts';
import { assertDanbooruError, basic } from '../../../test/danbooru-helpers.ts';

const HOUR = 3_600_000;
const MEMBER_SCOPES = ['read', 'posts:write', 'comments:write', 'reactions:write', 'pools:write'];
const keyHeader = (key: string) => ({ 'x-api-key': key });

type KeyRecord = Awaited<ReturnType<typeof listKeys>>[number] & {
  scopes: string[];
  expiresAt: string | null;
  allowedAddresses: string[];
  lastUsedFrom: string | null;
};

const makeKey = (ctx: Ctx, owner: Account, body: Record<string, unknown>) =>
  ctx.app.inject({ method: 'POST', url: '/api/user/api-keys', headers: owner.headers, payload: { name: 'limited', ...body } });

async function makeKeyOk(ctx: Ctx, owner: Account, body: Record<string, unknown> = {}) {
  const res = await makeKey(ctx, owner, body);
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { id: string; key: string; scopes: string[]; expiresAt: string | null; allowedAddresses: string[] };
}

const keysOf = async (ctx: Ctx, owner: Account) => (await listKeys(ctx.app, owner.headers)) as KeyRecord[];
const from = (ctx: Ctx, key: string, remoteAddress: string, url = '/api/posts') =>
  ctx.app.inject({ method: 'GET', url, headers: keyHeader(key), remoteAddress });

eachDatabase(
  {
    title: 'api keys: expiry and address limits',
    fleet:
      "a key's expiry and addresses are checked by whichever instance a request reaches, on the clock they share, and its last use is written by that instance",
  },
  (ctx: Ctx) => {
    let member: Account; // basic: one key
    let moderator: Account; // pro: three keys
    let admin: Account;

    before(async () => {
      member = await register(ctx.app, 'limitmember');
      moderator = await register(ctx.app, 'limitmod');
      admin = await register(ctx.app, 'limitadmin');
      await setAccount(ctx.database, 'limitmember', { tier: 'basic' });
      await setAccount(ctx.database, 'limitmod', { tier: 'pro', role: 'moderator' });
      await setAccount(ctx.database, 'limitadmin', { role: 'admin' });
    });

    test('a key made without limits has every scope its owner may give, no expiry and any address; the list shows its last use and address', async () => {
      const plain = await makeKeyOk(ctx, member);
      assert.deepEqual([plain.scopes, plain.expiresAt, plain.allowedAddresses], [MEMBER_SCOPES, null, []]);
      assert.deepEqual((await makeKeyOk(ctx, moderator)).scopes, [...MEMBER_SCOPES, 'moderation']);

      const [fresh] = await keysOf(ctx, member);
      assert.deepEqual(Object.keys(fresh).sort(), [
        'allowedAddresses',
        'createdAt',
        'expiresAt',
        'id',
        'isActive',
        'lastUsed',
        'lastUsedFrom',
        'name',
        'prefix',
        'scopes',
      ]);
      assert.deepEqual([fresh.lastUsed, fresh.lastUsedFrom], [null, null]);
      assert.equal((await from(ctx, plain.key, '127.8.0.1')).statusCode, 200);
      let [used] = await keysOf(ctx, member);
      assert.deepEqual([used.lastUsed, used.lastUsedFrom], [new Date(ctx.clock.now()).toISOString(), '127.8.0.1']);
      ctx.clock.advance(10_000);
      assert.equal((await from(ctx, plain.key, '127.8.0.2')).statusCode, 200);
      [used] = await keysOf(ctx, member);
      assert.deepEqual([used.lastUsed, used.lastUsedFrom], [new Date(ctx.clock.now()).toISOString(), '127.8.0.2'], 'a new address is written at once');
      await ctx.database.updateTable('api_keys').set({ is_active: 0 }).execute();
    });

    test('an unknown scope, a time past and a bad address are 400 naming them; a member asking for moderation is 403', async () => {
      const unknown = await makeKey(ctx, moderator, { scopes: ['read', 'delete:everything'] });
      assertBadField(unknown, 'scopes');
      assert.match(unknown.json().error, /unknown scope 'delete:everything'/);
      assertBadField(await makeKey(ctx, moderator, { scopes: [] }), 'scopes');
      assertBadField(await makeKey(ctx, moderator, { expiresAt: new Date(ctx.clock.now() - 1000).toISOString() }), 'expiresAt');
      assertBadField(await makeKey(ctx, moderator, { expiresAt: new Date(ctx.clock.now()).toISOString() }), 'expiresAt');
      assertBadField(await makeKey(ctx, moderator, { expiresAt: 'next tuesday' }), 'expiresAt');
      for (const wrong of ['10.0.0.0/33', 'example.com', '1.2.3.4/x', '2001:db8::/129', '10.0.0.1/8/8', '']) {
        const res = await makeKey(ctx, moderator, { allowedAddresses: ['192.0.2.1', wrong] });
        assertBadField(res, 'allowedAddresses');
        assert.ok(res.json().error.includes(`'${wrong}'`), res.json().error);
      }
      const moderation = await makeKey(ctx, member, { scopes: ['read', 'moderation'] });
      assertError(moderation, 403);
      assert.match(moderation.json().error, /moderation/);
      assert.deepEqual(
        (await keysOf(ctx, moderator)).filter((k) => k.isActive).length + (await keysOf(ctx, member)).filter((k) => k.isActive).length,
        0,
        'none of them made a key',
      );
    });

    test("an expired key is 401 everywhere, Danbooru's API included, and no longer counts against the tier's cap", async () => {
      const expiresAt = new Date(ctx.clock.now() + HOUR).toISOString();
      const k = await makeKeyOk(ctx, member, { expiresAt });
      assert.equal(k.expiresAt, expiresAt);
      assertError(await makeKey(ctx, member, {}), 403); // basic: one key
      ctx.clock.advance(HOUR - 1);
      assert.equal((await from(ctx, k.key, '127.0.0.1')).statusCode, 200, 'usable until its last millisecond');
      ctx.clock.advance(1);
      for (const url of ['/api/posts', '/api', '/api/user/api-keys', '/api/no-such-route']) {
        const res = await from(ctx, k.key, '127.0.0.1', url);
        assertError(res, 401);
        assert.deepEqual(res.json(), { error: 'API key expired', status: 401 }, url);
      }
      const danbooru = await ctx.app.inject({ method: 'GET', url: '/posts.json', headers: basic('limitmember', k.key) });
      assertDanbooruError(danbooru, 401, 'SessionLoader::AuthenticationFailure');
      assert.equal(danbooru.json().message, 'API key expired');
      const listed = (await keysOf(ctx, member)).find((x) => x.id === k.id)!;
      assert.deepEqual([listed.expiresAt, listed.isActive], [expiresAt, true]);
      const next = await makeKeyOk(ctx, member, {});
      assert.equal((await from(ctx, next.key, '127.0.0.1')).statusCode, 200, 'the expired key left room for a new one');
      await ctx.database.updateTable('api_keys').set({ is_active: 0 }).execute();
    });

    test('a tier going down revokes the newest live keys beyond its cap; expired keys are not counted', async () => {
      const old = await makeKeyOk(ctx, moderator, { expiresAt: new Date(ctx.clock.now() + 1000).toISOString() });
      const first = await makeKeyOk(ctx, moderator, {});
      ctx.clock.advance(2000);
      const second = await makeKeyOk(ctx, moderator, {});
      const third = await makeKeyOk(ctx, moderator, {}); // pro: three live keys, the expired one beside them
      const res = await ctx.app.inject({ method: 'PUT', url: '/api/admin/users/limitmod', headers: admin.headers, payload: { tier: 'basic' } });
      assert.equal(res.statusCode, 200, res.body);
      const active = new Map((await keysOf(ctx, moderator)).map((k) => [k.id, k.isActive]));
      assert.deepEqual(
        [old, first, second, third].map((k) => active.get(k.id)),
        [true, true, false, false],
      );
      await setAccount(ctx.database, 'limitmod', { tier: 'pro' });
      await ctx.database.updateTable('api_keys').set({ is_active: 0 }).execute();
    });

    test('a key limited to addresses is 403 from any other, naming it; refused requests are not its last use', async () => {
      const k = await makeKeyOk(ctx, moderator, { allowedAddresses: [' 127.9.0.0/16 ', '127.10.0.5', '127.10.0.5'] });
      assert.deepEqual(k.allowedAddresses, ['127.9.0.0/16', '127.10.0.5']);
      assert.equal((await from(ctx, k.key, '127.9.200.1')).statusCode, 200);
      assert.equal((await from(ctx, k.key, '127.10.0.5')).statusCode, 200);
      for (const address of ['127.10.0.6', '127.11.0.1']) {
        const res = await from(ctx, k.key, address);
        assertError(res, 403);
        assert.equal(res.json().error, `API key not allowed from address ${address}`);
      }
      const danbooru = await from(ctx, k.key, '127.11.0.1', `/posts.json?login=limitmod&api_key=${k.key}`);
      assertDanbooruError(danbooru, 403, 'User::PrivilegeError');
      assert.equal(danbooru.json().message, 'API key not allowed from address 127.11.0.1');
      const listed = (await keysOf(ctx, moderator)).find((x) => x.id === k.id)!;
      assert.deepEqual([listed.allowedAddresses, listed.lastUsedFrom], [['127.9.0.0/16', '127.10.0.5'], '127.10.0.5']);
      await ctx.database.updateTable('api_keys').set({ is_active: 0 }).execute();
    });

    testUnlessProcs(
      'IPv6 addresses and ranges, and IPv4 clients on an IPv6 socket',
      'its server processes are reached from IPv4 loopback addresses only',
      async () => {
        const k = await makeKeyOk(ctx, moderator, { allowedAddresses: ['2001:DB8:1::/48', '::1', '127.12.0.0/16'] });
        assert.deepEqual(k.allowedAddresses, ['2001:db8:1::/48', '::1', '127.12.0.0/16']);
        for (const ok of ['2001:db8:1:2::3', '::1', '::ffff:127.12.0.9', '127.12.3.4']) assert.equal((await from(ctx, k.key, ok)).statusCode, 200, ok);
        for (const refused of ['2001:db8:2::1', '::2', '127.13.0.1']) {
          const res = await from(ctx, k.key, refused);
          assertError(res, 403);
          assert.equal(res.json().error, `API key not allowed from address ${refused}`);
        }
        await ctx.database.updateTable('api_keys').set({ is_active: 0 }).execute();
      },
    );
  },
);
