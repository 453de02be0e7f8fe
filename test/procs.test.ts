// Procs mode itself (TEST_FLEET=procs, test/procs.ts): the one address really reaches the two
// threads of each of two server processes, and what one writes the others read.
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
  eachDatabase({ title: 'procs mode', fleet: 'the check of procs mode itself: two processes of two threads answer and share what they write' }, (ctx) => {
    const servedBy = async (url = '/healthz') => {
      const res = await ctx.app.inject({ method: 'GET', url });
      assert.equal(res.statusCode, 200, res.body);
      return String(res.headers['x-served-by']);
    };
    /** The process of an x-served-by (its pid, and the thread after a dot). */
    const processOf = (by: string) => by.split('.')[0];

    test('consecutive requests go to the two processes in turn, and both threads of each serve', async () => {
      const by: string[] = [];
      // The kernel gives each connection to one of a process's threads: not in turn, so ask until all four were seen.
      for (let i = 0; i < 60 && new Set(by).size < 4; i++) by.push(await servedBy());
      assert.equal(new Set(by).size, 4, `two threads in each of two processes: ${by}`);
      const pids = by.map(processOf);
      assert.equal(new Set(pids).size, 2, `two processes: ${pids}`);
      assert.ok(!pids.includes(String(process.pid)));
      // The proxy alternates instances.
      for (let i = 1; i < pids.length; i++) assert.notEqual(pids[i], pids[i - 1], `request ${i} went to the process of request ${i - 1}: ${pids}`);
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
      const uploader = processOf(String(res.headers['x-served-by']));
      const post = await ctx.app.inject({ method: 'GET', url: `/api/posts/${res.json().post.id}` });
      assert.equal(post.statusCode, 200, post.body);
      assert.notEqual(processOf(String(post.headers['x-served-by'])), uploader);
      assert.deepEqual(post.json().tags, ['procs_test']);
      const media = await ctx.app.inject({ method: 'GET', url: post.json().imageUrl });
      assert.equal(media.statusCode, 200);
      assert.deepEqual(media.rawPayload, image, 'the original as uploaded, from the bucket');
      assert.deepEqual(await readMedia(ctx, post.json().imageUrl.replace(/^\/media\//, '')), image);
    });

    test("the servers' clock is the test clock, and moving it here moves theirs", async () => {
      const alice = await register(ctx.app, 'clock');
      const pids: string[] = [];
      const createdAt = async () => {
        const m = multipart({ tags: 'procs_clock' }, [{ filename: 'a.png', data: await fx.png(8 + pids.length) }]);
        const res = await ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...alice.headers } });
        assert.equal(res.statusCode, 201, res.body);
        pids.push(String(res.headers['x-served-by']));
        const detail = await ctx.app.inject({ method: 'GET', url: `/api/posts/${res.json().post.id}` });
        assert.equal(detail.statusCode, 200, detail.body);
        pids.push(String(detail.headers['x-served-by']));
        return detail.json().createdAt;
      };
      assert.equal(await createdAt(), new Date(ctx.clock.now()).toISOString());
      for (let day = 1; day <= 4; day++) {
        ctx.clock.advance(24 * 3_600_000);
        assert.equal(await createdAt(), new Date(ctx.clock.now()).toISOString(), `day ${day}`);
      }
      assert.equal(new Set(pids.map(processOf)).size, 2, `both processes read the moved clock: ${pids}`);
    });
  });
