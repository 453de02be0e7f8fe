import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { eachDatabase, type Ctx } from '../../../test/helpers.ts';
import { assertError, register, revokeKey, setAccount, type Account } from '../../../test/auth-helpers.ts';
import { uploaded } from '../../../test/approval-helpers.ts';
import { assertDanbooruError, basic } from '../../../test/danbooru-helpers.ts';
import { requireRouteScopes, SCOPES } from '../../core/scopes.ts';

type Headers = Record<string, string>;
const keyHeader = (key: string) => ({ 'x-api-key': key });

/**
 * The scope each family of routes needs, as docs/api.md's table says; the first rule that matches
 * "METHOD /path" (OpenAPI's path) wins. A route in no family fails the walk below.
 */
const FAMILIES: [RegExp, string][] = [
  [/^POST \/api\/auth\/(register|login|logout|reset)$/, 'none'],
  [/^\w+ \/api\/user\/api-keys$/, 'account'],
  [/^(PUT \/api\/users\/me\/password|PATCH \/api\/users\/me)$/, 'account'],
  [/^\w+ \/api\/(admin|moderation|audit)\b/, 'moderation'],
  [/^POST \/api\/posts\/\{id\}\/(approve|reject)$/, 'moderation'],
  [/^POST \/api\/posts\/bulk-tags$/, 'moderation'],
  [/^(POST|PATCH|DELETE) \/api\/(tags|tag-aliases|tag-implications)\b/, 'moderation'],
  [/^(PUT|DELETE) \/api\/posts\/\{id\}\/(like|favorite)$/, 'reactions:write'],
  [/^(POST|DELETE) \/(favorites|posts\/\{id\}\/votes)\b/, 'reactions:write'],
  [/^(POST|DELETE) \/api\/comments\b/, 'comments:write'],
  [/^POST \/api\/reports$/, 'comments:write'],
  [/^(POST|PUT|PATCH|DELETE) \/api\/pools\b/, 'pools:write'],
  [/^(POST|PUT|PATCH|DELETE) \/api\/(webhooks|saved-searches|users\/me\/preferences)\b/, 'read'],
  [/^POST \/api\/search\/similar$/, 'read'],
  [/^(POST|PATCH|DELETE) \/api\/(posts|upload)\b/, 'posts:write'],
  [/^GET \//, 'read'],
];

interface Operation {
  method: string;
  path: string;
  scope: string;
}

async function operations(ctx: Ctx): Promise<Operation[]> {
  const doc = (await ctx.app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
  return Object.entries(doc.paths as Record<string, Record<string, Record<string, unknown>>>).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, scope: op['x-api-key-scope'] as string })),
  );
}

/** The message of an error in our shape or Danbooru's. */
const messageOf = (body: { error?: string; message?: string }) => (body.message ?? body.error) as string;

async function keyWith(ctx: Ctx, owner: Account, scopes: string[]): Promise<{ id: string; key: string }> {
  const res = await ctx.app.inject({
    method: 'POST',
    url: '/api/user/api-keys',
    headers: owner.headers,
    payload: { name: scopes.join(' ').slice(0, 64), scopes },
  });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

eachDatabase(
  {
    title: 'api keys: scopes on every route',
    fleet: 'a key and its scopes are rows every instance reads on use: one made through one app is limited alike on all',
  },
  (ctx: Ctx) => {
    let admin: Account; // enterprise: five keys at a time
    let member: Account;
    let ops: Operation[];

    before(async () => {
      admin = await register(ctx.app, 'scopeadmin');
      member = await register(ctx.app, 'scopemember');
      await setAccount(ctx.database, 'scopeadmin', { role: 'admin', tier: 'enterprise' });
      await setAccount(ctx.database, 'scopemember', { tier: 'enterprise' });
      ops = await operations(ctx);
    });

    test('every route a key can reach names its scope, the one its family needs', async () => {
      assert.ok(ops.length > 90, `the walk sees the whole API: ${ops.length} operations`);
      const known = new Set<string>([...SCOPES, 'account', 'none']);
      for (const op of ops) {
        const label = `${op.method} ${op.path}`;
        assert.ok(known.has(op.scope), `${label} has a scope: ${op.scope}`);
        const family = FAMILIES.find(([rule]) => rule.test(label));
        assert.ok(family, `${label} belongs to a family of docs/api.md's table`);
        assert.equal(op.scope, family[1], label);
      }
      for (const scope of known)
        assert.ok(
          ops.some((op) => op.scope === scope),
          `some route needs ${scope}`,
        );
    });

    test('a write route that names no scope stops the app from being built', async () => {
      const app = Fastify();
      requireRouteScopes(app);
      app.get('/read', async () => 'ok');
      app.post('/named', { config: { scope: 'posts:write' } }, async () => 'ok');
      app.delete('/staff', { config: { auth: 'moderator' } }, async () => 'ok');
      assert.throws(() => app.post('/forgotten', async () => 'ok'), /POST \/forgotten: say what an API key needs on it in config\.scope/);
      assert.throws(() => app.route({ method: ['GET', 'PUT'], url: '/mixed', handler: async () => 'ok' }), /PUT \/mixed/);
      await app.close();
    });

    test('each scope against every route: allowed where it is the scope needed, 403 naming the missing scope elsewhere', async () => {
      for (const held of SCOPES) {
        const k = await keyWith(ctx, admin, [held]);
        for (const op of ops) {
          const label = `${held} key: ${op.method} ${op.path}`;
          // Made-up ids: a request let through meets a 404 or a 400, and changes nothing.
          const url = `${op.path.replace(/\{\w+\}/g, '999999')}${op.path === '/api/events' ? '?no_such_parameter=1' : ''}`;
          const res = await ctx.app.inject({ method: op.method as 'GET', url, headers: keyHeader(k.key) });
          const refused = res.statusCode === 403 && /lacks scope/.test(res.body);
          if (op.scope === 'none' || op.scope === held) {
            assert.ok(!refused && res.statusCode !== 401, `${label} is let through: ${res.statusCode} ${res.body}`);
            continue;
          }
          const missing = op.scope === 'account' ? SCOPES.find((s) => s !== held) : op.scope;
          assert.equal(res.statusCode, 403, `${label}: ${res.body}`);
          assert.equal(messageOf(res.json()), `API key lacks scope '${missing}'`, label);
          if (!op.path.endsWith('.json')) assert.deepEqual(Object.keys(res.json()).sort(), ['error', 'status'], label);
        }
        assert.equal((await revokeKey(ctx.app, admin.headers, k.id)).statusCode, 200);
      }
    });

    test('a key with just its scope does the work of its family', async () => {
      const post = (await uploaded(ctx.app, member, 'scope_target')).id;
      const families = ['read', 'posts:write', 'comments:write', 'reactions:write', 'pools:write'];
      const keys = await Promise.all(families.map((scope) => keyWith(ctx, member, [scope])));
      const [read, posts, comments, reactions, pools] = keys.map((k) => keyHeader(k.key));
      assert.equal((await ctx.app.inject({ method: 'GET', url: `/api/posts/${post}`, headers: read })).statusCode, 200);
      const edit = await ctx.app.inject({ method: 'PATCH', url: `/api/posts/${post}`, headers: posts, payload: { title: 'edited by a key' } });
      assert.equal(edit.statusCode, 200, edit.body);
      const comment = await ctx.app.inject({ method: 'POST', url: '/api/comments', headers: comments, payload: { postId: post, content: 'from a bot' } });
      assert.equal(comment.statusCode, 201, comment.body);
      assertError(await ctx.app.inject({ method: 'POST', url: '/api/comments', headers: reactions, payload: { postId: post, content: 'no' } }), 403);
      assert.equal((await ctx.app.inject({ method: 'PUT', url: `/api/posts/${post}/like`, headers: reactions })).json().likes, 1);
      const pool = await ctx.app.inject({ method: 'POST', url: '/api/pools', headers: pools, payload: { name: 'made by a key', postIds: [post] } });
      assert.equal(pool.statusCode, 201, pool.body);
      const seen = (await ctx.app.inject({ method: 'GET', url: `/api/posts/${post}` })).json();
      assert.deepEqual([seen.title, seen.stats.comments, seen.stats.likes], ['edited by a key', 1, 1]);
      for (const k of keys) assert.equal((await revokeKey(ctx.app, member.headers, k.id)).statusCode, 200);
    });

    test("a moderator's key without `moderation` has a member's powers; with it, a moderator's", async () => {
      const post = (await uploaded(ctx.app, member, 'scope_others')).id;
      const plain = await keyWith(ctx, admin, ['read', 'posts:write']);
      const staff = await keyWith(ctx, admin, ['posts:write', 'moderation']);
      const other = await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${post}`, headers: keyHeader(plain.key) });
      assertError(other, 403);
      assert.doesNotMatch(other.json().error, /lacks scope/, "the scope is right: it is the post's owner who is not");
      assert.equal((await ctx.app.inject({ method: 'GET', url: `/api/posts/${post}` })).statusCode, 200, 'the post is still there');
      assert.equal((await ctx.app.inject({ method: 'GET', url: '/api/audit', headers: keyHeader(staff.key) })).statusCode, 200);
      assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${post}`, headers: keyHeader(staff.key) })).statusCode, 200);
      assert.equal((await ctx.app.inject({ method: 'GET', url: `/api/posts/${post}` })).statusCode, 404);
      for (const k of [plain, staff]) await revokeKey(ctx.app, admin.headers, k.id);
    });

    test("Danbooru's API honours the scopes, whichever way its clients send the key", async () => {
      const post = (await uploaded(ctx.app, member, 'scope_danbooru')).id;
      const writer = await keyWith(ctx, member, ['posts:write']);
      const reader = await keyWith(ctx, member, ['read']);
      const voter = await keyWith(ctx, member, ['reactions:write']);
      for (const url of [`/posts.json?login=scopemember&api_key=${writer.key}`, '/posts.json']) {
        const res = await ctx.app.inject({ method: 'GET', url, headers: url.includes('api_key') ? {} : basic('scopemember', writer.key) });
        assertDanbooruError(res, 403, 'User::PrivilegeError');
        assert.equal(res.json().message, "API key lacks scope 'read'");
      }
      const listed = await ctx.app.inject({ method: 'GET', url: `/posts.json?login=scopemember&api_key=${reader.key}` });
      assert.equal(listed.statusCode, 200, listed.body);
      const refused = await ctx.app.inject({ method: 'POST', url: `/favorites.json?post_id=${post}`, headers: basic('scopemember', reader.key) });
      assertDanbooruError(refused, 403, 'User::PrivilegeError');
      assert.equal(refused.json().message, "API key lacks scope 'reactions:write'");
      const faved = await ctx.app.inject({ method: 'POST', url: `/favorites.json?post_id=${post}&login=scopemember&api_key=${voter.key}` });
      assert.equal(faved.statusCode, 201, faved.body);
      assert.equal((await ctx.app.inject({ method: 'GET', url: `/api/posts/${post}` })).json().stats.favorites, 1);
      for (const k of [writer, reader, voter]) await revokeKey(ctx.app, member.headers, k.id);
    });

    test('key management, the password and the profile need a key with every scope its owner may give', async () => {
      const narrow = await keyWith(ctx, admin, ['read', 'posts:write', 'comments:write', 'reactions:write', 'pools:write']);
      const full = await keyWith(ctx, admin, [...SCOPES]);
      const asNarrow = keyHeader(narrow.key);
      for (const [method, url, payload] of [
        ['GET', '/api/user/api-keys', undefined],
        ['POST', '/api/user/api-keys', { name: 'wider', scopes: ['moderation'] }],
        ['DELETE', '/api/user/api-keys', { keyId: full.id }],
        ['PUT', '/api/users/me/password', { currentPassword: 'x', newPassword: 'y'.repeat(12) }],
        ['PATCH', '/api/users/me', { bio: 'set by a bot' }],
      ] as const) {
        const res = await ctx.app.inject({ method, url, headers: asNarrow, payload });
        assertError(res, 403);
        assert.equal(res.json().error, "API key lacks scope 'moderation'", `${method} ${url}`);
      }
      const listed = await ctx.app.inject({ method: 'GET', url: '/api/user/api-keys', headers: keyHeader(full.key) });
      assert.equal(listed.statusCode, 200);
      assert.ok(
        listed.json().keys.some((k: { id: string; isActive: boolean }) => k.id === full.id && k.isActive),
        'the full key was not revoked',
      );
      const made = await ctx.app.inject({ method: 'POST', url: '/api/user/api-keys', headers: keyHeader(full.key), payload: { name: 'by a full key' } });
      assert.equal(made.statusCode, 201, made.body);
      for (const id of [narrow.id, full.id, made.json().id]) await revokeKey(ctx.app, admin.headers, id);
    });
  },
);

/** Session headers never meet a scope: scopes limit keys only. */
eachDatabase('api keys: sessions are not limited by scopes', (ctx: Ctx) => {
  test('a session does every family of work, whatever its keys may do', async () => {
    const who = await register(ctx.app, 'sessiononly');
    await setAccount(ctx.database, 'sessiononly', { tier: 'basic' });
    await keyWith(ctx, who, ['read']);
    const post = (await uploaded(ctx.app, who, 'session_work')).id;
    const h: Headers = who.headers;
    assert.equal((await ctx.app.inject({ method: 'PUT', url: `/api/posts/${post}/like`, headers: h })).statusCode, 200);
    assert.equal((await ctx.app.inject({ method: 'POST', url: '/api/comments', headers: h, payload: { postId: post, content: 'hi' } })).statusCode, 201);
    assert.equal((await ctx.app.inject({ method: 'POST', url: '/api/pools', headers: h, payload: { name: 'mine' } })).statusCode, 201);
  });
});
