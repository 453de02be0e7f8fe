import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { anotherInstance, eachDatabase, listeningPort, testUnlessProcs, type Ctx } from '../../../test/helpers.ts';
import { createPost } from '../../../test/factories.ts';
import { register, setAccount, type Account } from '../../../test/auth-helpers.ts';
import { openStream, type SseStream } from '../../../test/sse.ts';
import { dropEventsBefore, newestEvent } from './events.repo.ts';

const EVENTS = { keepMinutes: 120, streamsPerUser: 3, streamsPerIp: 5, keepAliveSeconds: 1, pollMs: 50 };

eachDatabase(
  { title: 'live events', fleet: 'an event written through one instance reaches a stream open on another, which reads it from the shared table' },
  (ctx: Ctx) => {
    let port: number;
    let alice: Account;
    let mod: Account;
    const streams: SseStream[] = [];
    const open = async (path: string, headers: Record<string, string> = {}) => {
      const s = await openStream(port, path, headers);
      streams.push(s);
      return s;
    };
    const post = (tags: string[], rating: 'safe' | 'sketchy' | 'unsafe' = 'safe') =>
      createPost(ctx.database, { uploaderId: Number(alice.id), tags, rating, createdAt: ctx.clock.now() });
    const closeAll = () => {
      for (const s of streams.splice(0)) s.close();
    };

    before(async () => {
      alice = await register(ctx.app, 'alice');
      mod = await register(ctx.app, 'mod');
      await setAccount(ctx.database, 'mod', { role: 'moderator' });
      port = await listeningPort(ctx);
    });
    after(closeAll);

    test('a query stream sends the new posts it matches, as the list shows them, and their edits and deletes', async () => {
      const s = await open('/api/events?q=cat');
      assert.equal(s.status, 200, s.body);
      assert.match(String(s.headers['content-type']), /^text\/event-stream/);
      const dog = await post(['dog']);
      const hidden = await post(['cat'], 'unsafe'); // visitors see VISITOR_RATINGS (safe) alone
      const cat = await post(['cat', 'sky']);
      const [created] = await s.waitFor('post.created');
      assert.equal(created.data.id, String(cat));
      assert.deepEqual(created.data.tags, ['cat', 'sky']);
      assert.match(created.id!, /^\d+$/);

      const edit = await ctx.app.inject({ method: 'PATCH', url: `/api/posts/${cat}`, headers: mod.headers, payload: { title: 'a cat under the sky' } });
      assert.equal(edit.statusCode, 200, edit.body);
      const [updated] = await s.waitFor('post.updated');
      assert.equal(updated.data.id, String(cat));
      assert.equal(updated.data.title, 'a cat under the sky');
      assert.ok(Number(updated.id) > Number(created.id), 'event ids grow');

      const gone = await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${cat}`, headers: mod.headers });
      assert.equal(gone.statusCode, 200, gone.body);
      const [deleted] = await s.waitFor('post.deleted');
      assert.deepEqual(deleted.data, { id: String(cat) });
      // Neither the other tag's post nor the hidden rating's came, and no edit of a post never sent.
      await ctx.app.inject({ method: 'PATCH', url: `/api/posts/${dog}`, headers: mod.headers, payload: { title: 'renamed' } });
      await post(['cat']);
      await s.waitFor('post.created', 2);
      const ids = s.events.map((e) => e.data.id);
      assert.ok(!ids.includes(String(dog)) && !ids.includes(String(hidden)), JSON.stringify(s.events));
      closeAll();
    });

    test('a member stream follows their ratings and blacklist', async () => {
      const put = await ctx.app.inject({
        method: 'PUT',
        url: '/api/users/me/preferences',
        headers: alice.headers,
        payload: { blacklist: ['spider'], ratings: ['safe', 'unsafe'] },
      });
      assert.equal(put.statusCode, 200, put.body);
      const s = await open('/api/events?q=', alice.headers);
      const spider = await post(['spider', 'web']);
      const sketchy = await post(['web'], 'sketchy');
      const unsafe = await post(['web'], 'unsafe');
      const [first] = await s.waitFor('post.created');
      assert.equal(first.data.id, String(unsafe));
      await post(['web']);
      const all = await s.waitFor('post.created', 2);
      assert.ok(!all.some((e) => e.data.id === String(spider) || e.data.id === String(sketchy)), JSON.stringify(all));
      closeAll();
    });

    test("a post stream sends the post's comments, likes and edits, and ends with its deletion", async () => {
      const id = await post(['bird']);
      const s = await open(`/api/events?post=${id}`);
      assert.equal(s.status, 200, s.body);
      const made = await ctx.app.inject({
        method: 'POST',
        url: '/api/comments',
        headers: alice.headers,
        payload: { postId: String(id), content: 'nice bird' },
      });
      assert.equal(made.statusCode, 201, made.body);
      const [comment] = await s.waitFor('comment.created');
      assert.equal(comment.data.content, 'nice bird');
      assert.equal(comment.data.author.username, 'alice');
      assert.equal((await ctx.app.inject({ method: 'PUT', url: `/api/posts/${id}/like`, headers: mod.headers })).statusCode, 200);
      const [liked] = await s.waitFor('like.added');
      assert.deepEqual(liked.data, { postId: String(id), likes: 1 });
      assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${id}/like`, headers: mod.headers })).statusCode, 200);
      assert.deepEqual((await s.waitFor('like.removed'))[0].data, { postId: String(id), likes: 0 });
      const cid = made.json().comment.id;
      assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/comments/${cid}`, headers: alice.headers })).statusCode, 200);
      assert.deepEqual((await s.waitFor('comment.deleted'))[0].data, { id: cid, postId: String(id) });
      await ctx.app.inject({ method: 'PATCH', url: `/api/posts/${id}`, headers: mod.headers, payload: { tags: ['bird', 'tree'] } });
      const [edited] = await s.waitFor('post.updated');
      assert.deepEqual(edited.data.tags, ['bird', 'tree']);
      // Another post's comment is not this stream's.
      const other = await post(['fish']);
      await ctx.app.inject({ method: 'POST', url: '/api/comments', headers: alice.headers, payload: { postId: String(other), content: 'elsewhere' } });
      await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${id}`, headers: mod.headers });
      await s.waitFor('post.deleted');
      await new Promise((r) => setTimeout(r, 200));
      assert.ok(s.ended, 'the stream ends with its post');
      assert.equal(s.events.filter((e) => e.event === 'comment.created').length, 1);
    });

    test("a stream follows the list's other filters too, as a page of GET /api/posts would", async () => {
      const s = await open('/api/events?q=&tag=fox&tag=snow');
      assert.equal(s.status, 200, s.body);
      await post(['fox']);
      const both = await post(['fox', 'snow']);
      const [got] = await s.waitFor('post.created');
      assert.equal(got.data.id, String(both));
      await post(['snow', 'fox', 'night']);
      assert.equal((await s.waitFor('post.created', 2)).length, 2);
      assert.ok(
        s.events.every((e) => e.data.tags.includes('fox') && e.data.tags.includes('snow')),
        JSON.stringify(s.events),
      );
      closeAll();
    });

    test('Last-Event-ID resumes after the last event a client had, with none lost', async () => {
      const s = await open('/api/events?q=resume');
      await post(['resume']);
      const [first] = await s.waitFor('post.created');
      s.close();
      const missed = [await post(['resume']), await post(['resume', 'more'])];
      await post(['other']);
      const again = await open('/api/events?q=resume', { 'last-event-id': first.id! });
      const got = await again.waitFor('post.created', 2);
      assert.deepEqual(
        got.map((e) => e.data.id),
        missed.map(String),
      );
      // The query parameter serves clients that cannot set the header.
      const third = await open(`/api/events?q=resume&lastEventId=${first.id}`);
      assert.deepEqual(
        (await third.waitFor('post.created', 2)).map((e) => e.data.id),
        missed.map(String),
      );
      closeAll();
    });

    test('an idle stream gets keep-alive comments', async () => {
      const s = await open('/api/events?q=nothing_comes');
      await new Promise((r) => setTimeout(r, 2300));
      assert.ok(s.comments.filter((c) => c === 'keep-alive').length >= 2, JSON.stringify(s.comments));
      closeAll();
    });

    testUnlessProcs(
      'open streams are limited per member and per address',
      'streams are counted per serving process, and the proxy hands each connection to the next one',
      async () => {
        const mine = [];
        for (let i = 0; i < EVENTS.streamsPerUser; i++) mine.push(await open('/api/events?q=a', alice.headers));
        assert.ok(mine.every((s) => s.status === 200));
        const over = await open('/api/events?q=a', alice.headers);
        assert.equal(over.status, 429, over.body);
        assert.match(JSON.parse(over.body).error, /open event streams/);
        // The address has room for two more (visitors): then it is full too.
        assert.equal((await open('/api/events?q=a')).status, 200);
        assert.equal((await open('/api/events?q=a')).status, 200);
        assert.equal((await open('/api/events?q=a')).status, 429);
        // Closing one gives its place back.
        mine[0].close();
        await new Promise((r) => setTimeout(r, 100));
        assert.equal((await open('/api/events?q=a')).status, 200);
        closeAll();
      },
    );

    test('bad streams are refused before they open', async () => {
      for (const [path, status] of [
        ['/api/events', 400],
        ['/api/events?q=cat&post=1', 400],
        ['/api/events?q=(cat', 400],
        ['/api/events?q=cat order:likes', 400],
        ['/api/events?post=abc', 400],
        ['/api/events?post=999999', 404],
        ['/api/events?q=cat&lastEventId=x', 400],
        ['/api/events?post=1&tag=cat', 400],
        ['/api/events?q=&minLikes=-1', 400],
      ] as const) {
        const res = await ctx.app.inject({ method: 'GET', url: path.replace(/ /g, '%20') });
        assert.equal(res.statusCode, status, `${path}: ${res.body}`);
        assert.equal(res.json().status, status);
      }
    });

    testUnlessProcs(
      'a stream on another instance gets what this one wrote',
      "every other test's streams and writes already go to different processes",
      async () => {
        const other = await anotherInstance(ctx);
        try {
          await other.listen({ port: 0, host: '127.0.0.1' });
          const otherPort = (other.server.address() as AddressInfo).port;
          const s = await openStream(otherPort, '/api/events?q=across');
          streams.push(s);
          const made = await ctx.app.inject({
            method: 'POST',
            url: '/api/comments',
            headers: alice.headers,
            payload: { postId: String(await post(['x'])), content: 'c' },
          });
          assert.equal(made.statusCode, 201);
          const id = await post(['across']);
          assert.equal((await s.waitFor('post.created'))[0].data.id, String(id));
          closeAll();
        } finally {
          await other.close();
        }
      },
    );

    test('events older than the kept time are dropped, newer ones stay', async () => {
      const newest = await newestEvent(ctx.database);
      const oldest = Number((await ctx.database.selectFrom('events').select('seq').orderBy('seq').limit(1).executeTakeFirstOrThrow()).seq);
      assert.ok(newest - oldest >= 4, 'the earlier tests wrote events');
      // The older half of them as if written three hours ago.
      const middle = Math.floor((oldest + newest) / 2);
      await ctx.database
        .updateTable('events')
        .set({ at: Date.now() - 3 * 3600_000 })
        .where('seq', '<=', middle)
        .execute();
      const dropped = await dropEventsBefore(ctx.database, Date.now() - EVENTS.keepMinutes * 60_000);
      assert.ok(dropped >= 1, `dropped ${dropped}`);
      const left = await ctx.database.selectFrom('events').select('seq').orderBy('seq').execute();
      assert.ok(Number(left[0].seq) > middle, 'every old event went');
      assert.equal(Number(left[left.length - 1].seq), newest, 'the newer ones stay');
    });
  },
  { events: EVENTS },
);
