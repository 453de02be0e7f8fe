// Procs mode itself (TEST_FLEET=procs, test/procs.ts): the one address really reaches four server
// processes of two instances in turn, and what one writes the others read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { eachDatabase, readMedia } from './helpers.ts';
import { procsMode } from './fleet.ts';
import { register } from './auth-helpers.ts';
import { multipart } from './multipart.ts';
import * as fx from './media-fixtures.ts';

// Declared in procs mode only (npm run test:fleet:procs, which CI runs): elsewhere there are no processes to check.
if (!procsMode()) console.log('# test/procs.test.ts: runs in procs mode only (npm run test:fleet:procs)');
else
  eachDatabase({ title: 'procs mode', fleet: 'the check of procs mode itself: four processes answer in turn and share what they write' }, (ctx) => {
    const servedBy = async (url = '/healthz') => {
      const res = await ctx.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, res.body);
      return Number(res.headers['x-served-by']);
    };

    test('consecutive requests are answered by the four processes of the two instances in turn', async () => {
      const pids: number[] = [];
      for (let i = 0; i < 12; i++) pids.push(await servedBy());
      assert.equal(new Set(pids).size, 4, `four processes: ${pids}`);
      assert.ok(!pids.includes(process.pid));
      for (let i = 1; i < pids.length; i++) assert.notEqual(pids[i], pids[i - 1], `request ${i} went to the process of request ${i - 1}: ${pids}`);
      // The proxy alternates instances and each instance alternates its two processes: a cycle of four.
      assert.deepEqual(pids.slice(4), [...pids.slice(0, 4), ...pids.slice(0, 4)]);
    });

    test('an account made on one process signs in on another and is known on a third; an upload streamed to one is read on another', async () => {
      const alice = await register(ctx.app, 'alice');
      const me = await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: alice.headers });
      assert.equal(me.statusCode, 200, me.body);
      assert.equal(me.json().user.username, 'alice');

      const image = await fx.png(7);
      const m = multipart({ tags: 'procs_test', title: 'across processes' }, [{ filename: 'a.png', data: image }]);
      // Sent as a stream (chunked), as a browser's large upload arrives.
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/upload',
        payload: Readable.from([m.payload]),
        headers: { ...m.headers, ...alice.headers },
      });
      assert.equal(res.statusCode, 201, res.body);
      const uploader = Number(res.headers['x-served-by']);
      const post = await ctx.app.inject({ method: 'GET', url: `/api/posts/${res.json().post.id}` });
      assert.equal(post.statusCode, 200, post.body);
      assert.notEqual(Number(post.headers['x-served-by']), uploader);
      assert.deepEqual(post.json().tags, ['procs_test']);
      const media = await ctx.app.inject({ method: 'GET', url: post.json().imageUrl });
      assert.equal(media.statusCode, 200);
      assert.deepEqual(media.rawPayload, image, 'the original as uploaded, from the bucket');
      assert.deepEqual(await readMedia(ctx, post.json().imageUrl.replace(/^\/media\//, '')), image);
    });

    test("the servers' clock is the test clock, and moving it here moves theirs", async () => {
      const alice = await register(ctx.app, 'clock');
      const pids: number[] = [];
      const createdAt = async () => {
        const m = multipart({ tags: 'procs_clock' }, [{ filename: 'a.png', data: await fx.png(8 + pids.length) }]);
        const res = await ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...alice.headers } });
        assert.equal(res.statusCode, 201, res.body);
        pids.push(Number(res.headers['x-served-by']));
        const detail = await ctx.app.inject({ method: 'GET', url: `/api/posts/${res.json().post.id}` });
        assert.equal(detail.statusCode, 200, detail.body);
        pids.push(Number(detail.headers['x-served-by']));
        return detail.json().createdAt;
      };
      assert.equal(await createdAt(), new Date(ctx.clock.now()).toISOString());
      for (let day = 1; day <= 4; day++) {
        ctx.clock.advance(24 * 3_600_000);
        assert.equal(await createdAt(), new Date(ctx.clock.now()).toISOString(), `day ${day}`);
      }
      assert.equal(new Set(pids).size, 4, 'every process read the moved clock');
    });
  });
