import { after, before, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { anotherInstance, eachDatabase, testUnlessProcs, type Ctx } from '../../../test/helpers.ts';
import { createPost } from '../../../test/factories.ts';
import { register, type Account } from '../../../test/auth-helpers.ts';
import { signature, send } from './delivery.ts';
import { backoffMs } from './webhooks.service.ts';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: { id: string; event: string; webhookId: string; data: any };
}

/** A webhook's target on loopback: records each POST and answers the next status of `statuses` (then 200). */
async function receiver() {
  const got: Received[] = [];
  const statuses: number[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      got.push({ headers: req.headers, body, json: JSON.parse(body) });
      res.writeHead(statuses.shift() ?? 200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { got, statuses, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

async function until<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const SETTINGS = { allowPrivate: true, maxFailures: 3, timeoutSeconds: 2 };

eachDatabase(
  { title: 'webhooks', fleet: 'every instance matches and sends: each delivery must still be written and sent once' },
  (ctx: Ctx) => {
    let alice: Account;
    let bob: Account;
    let target: Awaited<ReturnType<typeof receiver>>;
    const hook = async (who: Account, body: Record<string, unknown>) =>
      ctx.app.inject({ method: 'POST', url: '/api/webhooks', headers: who.headers, payload: body });
    const deliveries = async (who: Account, id: string) => {
      const res = await ctx.app.inject({ url: `/api/webhooks/${id}/deliveries`, headers: who.headers });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().deliveries as {
        state: string;
        attempts: number;
        lastStatus: number | null;
        event: string;
        eventId: string;
        nextAttemptAt: string | null;
      }[];
    };
    beforeEach(() => {
      target.got.length = 0;
      target.statuses.length = 0;
    });
    const post = (tags: string[]) => createPost(ctx.database, { uploaderId: Number(alice.id), tags, createdAt: ctx.clock.now() });

    before(async () => {
      alice = await register(ctx.app, 'alice');
      bob = await register(ctx.app, 'bob');
      target = await receiver();
    });
    after(() => target.close());

    test('a webhook gets the new posts its query matches, signed with its secret shown once', async () => {
      const before = await post(['cat']); // made before the webhook: never sent
      const res = await hook(alice, { url: target.url, events: ['post.created'], q: 'cat' });
      assert.equal(res.statusCode, 201, res.body);
      const made = res.json();
      assert.match(made.secret, /^whsec_/);
      assert.deepEqual([made.events, made.q, made.active, made.failures], [['post.created'], 'cat', true, 0]);
      const listed = (await ctx.app.inject({ url: '/api/webhooks', headers: alice.headers })).json().webhooks;
      assert.deepEqual(
        listed.map((w: { id: string; secret?: string }) => [w.id, w.secret]),
        [[made.id, undefined]],
      );
      await post(['dog']);
      const cat = await post(['cat', 'sky']);
      const [got] = await until('the delivery', () => target.got.length >= 1 && target.got);
      assert.equal(got.json.event, 'post.created');
      assert.equal(got.json.data.id, String(cat));
      assert.deepEqual(got.json.data.tags, ['cat', 'sky']);
      assert.equal(got.headers['x-webhook-signature'], signature(made.secret, got.body));
      assert.equal(got.headers['x-webhook-event'], 'post.created');
      assert.equal(got.headers['x-webhook-id'], made.id);
      const list = await until('delivered', async () => {
        const d = await deliveries(alice, made.id);
        return d.length === 1 && d[0].state === 'delivered' && d;
      });
      assert.deepEqual([list[0].attempts, list[0].lastStatus, list[0].nextAttemptAt], [1, 200, null]);
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(target.got.length, 1, `only the matching post, once, and not ${before}`);
      await ctx.app.inject({ method: 'DELETE', url: `/api/webhooks/${made.id}`, headers: alice.headers });
    });

    test('a failed delivery is tried again with backoff; a run of failures turns the webhook off', async () => {
      const made = (await hook(alice, { url: target.url, events: ['comment.created'] })).json();
      const id = await post(['bird']);
      target.statuses.push(500);
      const c = await ctx.app.inject({ method: 'POST', url: '/api/comments', headers: bob.headers, payload: { postId: String(id), content: 'hello' } });
      assert.equal(c.statusCode, 201);
      const failed = await until('the first attempt', async () => {
        const d = await deliveries(alice, made.id);
        return d[0]?.attempts === 1 && d;
      });
      assert.deepEqual([failed[0].state, failed[0].lastStatus, failed[0].event], ['pending', 500, 'comment.created']);
      assert.equal(Date.parse(failed[0].nextAttemptAt!) - ctx.clock.now(), backoffMs(1));
      // Not before its time: the clock has not moved.
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(target.got.length, 1);
      ctx.clock.advance(backoffMs(1));
      await until('the second attempt', async () => (await deliveries(alice, made.id))[0].state === 'delivered');
      assert.equal(target.got.length, 2);
      assert.equal(target.got[1].json.data.content, 'hello');
      assert.equal(target.got[1].body, target.got[0].body, 'the same body each attempt');

      // Three failures in a row (WEBHOOK_MAX_FAILURES here) turn it off, and what it had pending fails.
      target.statuses.push(500, 500, 500);
      await ctx.app.inject({ method: 'POST', url: '/api/comments', headers: bob.headers, payload: { postId: String(id), content: 'again' } });
      for (let i = 1; i <= 3; i++) {
        await until(`attempt ${i}`, async () => (await deliveries(alice, made.id))[0].attempts === i);
        ctx.clock.advance(backoffMs(i));
      }
      const off = (await ctx.app.inject({ url: '/api/webhooks', headers: alice.headers })).json().webhooks.find((w: { id: string }) => w.id === made.id);
      assert.deepEqual([off.active, off.failures], [false, 3]);
      assert.equal((await deliveries(alice, made.id))[0].state, 'failed');
      const on = await ctx.app.inject({ method: 'PATCH', url: `/api/webhooks/${made.id}`, headers: alice.headers, payload: { active: true } });
      assert.deepEqual([on.json().active, on.json().failures], [true, 0]);
      await ctx.app.inject({ method: 'DELETE', url: `/api/webhooks/${made.id}`, headers: alice.headers });
    });

    test('a delivery not taken for 24 hours fails', async () => {
      const made = (await hook(alice, { url: target.url, events: ['post.created'] })).json();
      target.statuses.push(503, 503);
      await post(['late']);
      await until('the first attempt', async () => (await deliveries(alice, made.id))[0]?.attempts === 1);
      ctx.clock.advance(25 * 3600_000);
      await until('failed', async () => (await deliveries(alice, made.id))[0].state === 'failed');
      assert.equal(target.got.length, 2, 'tried once more, then given up');
      await ctx.app.inject({ method: 'DELETE', url: `/api/webhooks/${made.id}`, headers: alice.headers });
    });

    testUnlessProcs('two instances write and send each delivery once', 'the proxy already spreads every test over four processes', async () => {
      const other = await anotherInstance(ctx);
      try {
        const made = (await hook(alice, { url: target.url, events: ['post.created'], q: 'twice' })).json();
        const ids = [await post(['twice']), await post(['twice']), await post(['twice'])];
        await until('three deliveries', () => target.got.length >= 3);
        await new Promise((r) => setTimeout(r, 2500));
        assert.deepEqual(target.got.map((g) => g.json.data.id).sort(), ids.map(String).sort());
        assert.equal((await deliveries(alice, made.id)).length, 3);
        await ctx.app.inject({ method: 'DELETE', url: `/api/webhooks/${made.id}`, headers: alice.headers });
      } finally {
        await other.close();
      }
    });

    test('webhooks are their owner’s, and bad ones are refused', async () => {
      const made = (await hook(alice, { url: target.url, events: ['like.added'] })).json();
      assert.equal((await ctx.app.inject({ url: `/api/webhooks/${made.id}/deliveries`, headers: bob.headers })).statusCode, 404);
      assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/webhooks/${made.id}`, headers: bob.headers })).statusCode, 404);
      assert.equal((await ctx.app.inject({ url: '/api/webhooks' })).statusCode, 401);
      for (const body of [
        { url: 'ftp://example.org/', events: ['post.created'] },
        { url: 'not a url', events: ['post.created'] },
        { url: 'http://u:p@example.org/', events: ['post.created'] },
        { url: target.url, events: [] },
        { url: target.url, events: ['post.exploded'] },
        { url: target.url, events: ['post.created'], q: '(cat' },
      ]) {
        const res = await hook(alice, body);
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
      }
      assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/webhooks/${made.id}`, headers: alice.headers })).statusCode, 200);
    });
  },
  { webhooks: SETTINGS },
);

eachDatabase(
  'webhooks to private addresses',
  (ctx) => {
    test('loopback, private and link-local targets are refused unless allowed, when registered and when sent', async () => {
      const alice = await register(ctx.app, 'alice');
      for (const url of [
        'http://127.0.0.1:9/',
        'http://localhost/',
        'http://10.1.2.3/',
        'http://169.254.169.254/latest',
        'http://[::1]/',
        'http://[::ffff:127.0.0.1]/',
      ]) {
        const res = await ctx.app.inject({ method: 'POST', url: '/api/webhooks', headers: alice.headers, payload: { url, events: ['post.created'] } });
        assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
        assert.match(res.json().error, /not a public address|does not resolve/);
      }
      // At delivery too: a name that resolves to loopback is refused as it is connected to.
      const target = await receiver();
      try {
        const port = new URL(target.url).port;
        const attempt = await send({ url: `http://localhost:${port}/`, secret: 's' }, '{}', {}, { allowPrivate: false, timeoutMs: 2000 });
        assert.equal(attempt.status, null);
        assert.match(attempt.error!, /not a public address/);
        const allowed = await send({ url: `http://localhost:${port}/`, secret: 's' }, '{}', {}, { allowPrivate: true, timeoutMs: 2000 });
        assert.equal(allowed.status, 200);
      } finally {
        await target.close();
      }
    });
  },
  { webhooks: { ...SETTINGS, allowPrivate: false } },
);
