import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Config } from '../../config.ts';
import { anotherInstance, eachDatabase, listeningPort, testUnlessProcs, type Ctx } from '../../../test/helpers.ts';
import { createPost } from '../../../test/factories.ts';
import { register, type Account } from '../../../test/auth-helpers.ts';
import { openStream } from '../../../test/sse.ts';

/** Streams poll every ten seconds here: an event that arrives within WITHIN came by a wake-up. */
const EVENTS = { keepMinutes: 120, streamsPerUser: 10, streamsPerIp: 20, keepAliveSeconds: 25, pollMs: 10_000 };
const WITHIN = 4000;

/** A like through `app` on a post whose stream is open on `port`: the like's event, timed. */
async function likeSeen(ctx: Ctx, port: number, writer: Ctx['app'], who: Account) {
  const post = await createPost(ctx.database, { uploaderId: Number(who.id), tags: ['wake'], createdAt: ctx.clock.now() });
  const s = await openStream(port, `/api/events?post=${post}`);
  try {
    assert.equal(s.status, 200, s.body);
    const started = Date.now();
    assert.equal((await writer.inject({ method: 'PUT', url: `/api/posts/${post}/like`, headers: who.headers })).statusCode, 200);
    const [liked] = await s.waitFor('like.added', 1, WITHIN);
    assert.deepEqual(liked.data, { postId: String(post), likes: 1 });
    return Date.now() - started;
  } finally {
    s.close();
  }
}

/** Instances wake each other: through Redis, else PostgreSQL's NOTIFY, else (SQLite) a process's serving threads tell each other. */
function wakeSuite(title: string, config: Partial<Config>) {
  eachDatabase(
    { title, fleet: 'a write answered by one instance wakes the event readers of the others' },
    (ctx) => {
      let alice: Account;
      let port: number;
      before(async () => {
        alice = await register(ctx.app, 'alice');
        port = await listeningPort(ctx);
      });

      test('a write wakes the streams at once, not at the next poll', async () => {
        const ms = await likeSeen(ctx, port, ctx.app, alice);
        assert.ok(ms < WITHIN, `${ms} ms`);
      });

      // On SQLite without Redis, two apps on one file in one process stand for a process's serving threads (WORKERS > 1).
      testUnlessProcs('a write through another instance wakes this one', 'the proxy already spreads the test above over the processes', async () => {
        const other = await anotherInstance(ctx);
        try {
          await other.listen({ port: 0, host: '127.0.0.1' });
          const otherPort = (other.server.address() as AddressInfo).port;
          await likeSeen(ctx, otherPort, ctx.app, alice);
        } finally {
          await other.close();
        }
      });
    },
    { events: EVENTS, ...config },
  );
}

wakeSuite('event wake-ups', {});

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) test('event wake-ups through Redis', { skip: 'REDIS_URL is not set' }, () => {});
else wakeSuite('event wake-ups through Redis', { redisUrl: REDIS_URL, redisPrefix: `test:${randomBytes(6).toString('hex')}:` });
