import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { createPost } from '../../../test/factories.ts';
import { ISO_MS, assertBadField, assertError, createKeyOk, register, setAccount, type Account } from '../../../test/auth-helpers.ts';

type Headers = Record<string, string>;

function comment(ctx: Ctx, headers: Headers, payload: Record<string, unknown>) {
  return ctx.app.inject({ method: 'POST', url: '/api/comments', headers, payload });
}

async function commentOk(ctx: Ctx, who: Account, postId: string, content: string, parentId?: string | null) {
  const res = await comment(ctx, who.headers, { postId, content, ...(parentId === undefined ? {} : { parentId }) });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().comment as { id: string; parentId: string | null; replyCount: number };
}

function remove(ctx: Ctx, headers: Headers, id: string) {
  return ctx.app.inject({ method: 'DELETE', url: `/api/comments/${id}`, headers });
}

async function list(ctx: Ctx, postId: string, query = '') {
  const res = await getJson(ctx.app, `/api/posts/${postId}/comments${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as {
    comments: { id: string; parentId: string | null; replyCount: number; content: string }[];
    total: number;
    page: number;
    totalPages: number;
  };
}

/** The post's stored count in both places clients read it, checked against the rows themselves. */
async function assertCommentCount(ctx: Ctx, postId: string, expected: number) {
  const rows = await ctx.database.selectFrom('comments').select(sql<number>`count(*)`.as('n')).where('post_id', '=', Number(postId)).executeTakeFirstOrThrow();
  assert.equal(Number(rows.n), expected, 'comment rows');
  assert.equal((await getJson(ctx.app, `/api/posts/${postId}`)).body.stats.comments, expected, 'GET /api/posts/<id> stats.comments');
  const item = (await getJson(ctx.app, '/api/posts?limit=100')).body.posts.find((p: { id: string }) => p.id === postId);
  assert.equal(item.comments, expected, 'list item comments');
}

const replyCountOf = async (ctx: Ctx, postId: string, id: string) => (await list(ctx, postId, '?limit=100')).comments.find((c) => c.id === id)?.replyCount;

eachDatabase(
  'comments',
  (ctx) => {
    let alice: Account;
    let bob: Account;
    let mod: Account;
    let postA: string;
    let postB: string;

    before(async () => {
      alice = await register(ctx.app, 'alice');
      bob = await register(ctx.app, 'bob');
      mod = await register(ctx.app, 'mod');
      await setAccount(ctx.database, 'mod', { role: 'moderator' });
      const now = ctx.clock.now();
      postA = String(await createPost(ctx.database, { uploaderId: Number(alice.id), title: 'A', createdAt: now - 1000 }));
      postB = String(await createPost(ctx.database, { uploaderId: Number(alice.id), title: 'B', createdAt: now - 2000 }));
    });

    test('a top-level comment, with parentId missing or null, is 201 { message, comment } with every field', async () => {
      const post = String(await createPost(ctx.database, { uploaderId: Number(alice.id), createdAt: ctx.clock.now() }));
      const res = await comment(ctx, bob.headers, { postId: post, content: '  First!  ' });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.equal(typeof body.message, 'string');
      assert.deepEqual(Object.keys(body.comment).sort(), ['author', 'content', 'createdAt', 'id', 'parentId', 'postId', 'replyCount']);
      assert.match(body.comment.id, /^\d+$/);
      assert.equal(body.comment.postId, post);
      assert.equal(body.comment.parentId, null);
      assert.equal(body.comment.content, 'First!', 'surrounding spaces are trimmed');
      assert.equal(body.comment.author.username, 'bob');
      assert.equal(typeof body.comment.author.avatar, 'string');
      assert.match(body.comment.createdAt, ISO_MS);
      assert.equal(body.comment.createdAt, new Date(ctx.clock.now()).toISOString());
      assert.equal(body.comment.replyCount, 0);

      const withNull = await commentOk(ctx, alice, post, 'second', null);
      assert.equal(withNull.parentId, null);
      const page = await list(ctx, post);
      assert.deepEqual(
        page.comments.map((c) => c.id),
        [body.comment.id, withNull.id],
      );
      await assertCommentCount(ctx, post, 2);
    });

    test('an API key works as well as a session', async () => {
      await setAccount(ctx.database, 'bob', { tier: 'basic' });
      const { key } = await createKeyOk(ctx.app, bob.headers, 'comments');
      const res = await comment(ctx, { 'x-api-key': key }, { postId: postB, content: 'by key' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().comment.author.username, 'bob');
      const del = await remove(ctx, { 'x-api-key': key }, res.json().comment.id);
      assert.equal(del.statusCode, 200, del.body);
    });

    test("replies: the parent's replyCount and the post's comment count stay exact", async () => {
      const post = String(await createPost(ctx.database, { uploaderId: Number(alice.id), createdAt: ctx.clock.now() }));
      const top = await commentOk(ctx, alice, post, 'top');
      const r1 = await commentOk(ctx, bob, post, 'reply 1', top.id);
      const r2 = await commentOk(ctx, alice, post, 'reply 2', top.id);
      const nested = await commentOk(ctx, bob, post, 'reply to reply', r1.id);
      assert.equal(r1.parentId, top.id);
      assert.equal(nested.parentId, r1.id);
      const page = await list(ctx, post);
      const byId = new Map(page.comments.map((c) => [c.id, c]));
      assert.equal(byId.get(top.id)!.replyCount, 2, 'direct replies only');
      assert.equal(byId.get(r1.id)!.replyCount, 1);
      assert.equal(byId.get(r2.id)!.replyCount, 0);
      assert.equal(byId.get(nested.id)!.parentId, r1.id);
      await assertCommentCount(ctx, post, 4);
    });

    test('the list is oldest first by time, paginated with page and limit, with parentId for threads', async () => {
      const post = String(await createPost(ctx.database, { uploaderId: Number(alice.id), createdAt: ctx.clock.now() }));
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ctx.clock.advance(60_000);
        ids.push((await commentOk(ctx, i % 2 ? bob : alice, post, `c${i}`)).id);
      }
      // A comment whose id is the newest but whose time is the oldest: order follows time, not id.
      ctx.clock.advance(-3_600_000);
      const early = await commentOk(ctx, bob, post, 'early');
      ctx.clock.advance(3_600_000 + 60_000);
      const reply = await commentOk(ctx, alice, post, 'late reply', ids[0]);
      const expected = [early.id, ...ids, reply.id];

      const all = await list(ctx, post);
      assert.deepEqual(
        all.comments.map((c) => c.id),
        expected,
      );
      assert.deepEqual([all.total, all.page, all.totalPages], [7, 1, 1]);
      assert.equal(all.comments.at(-1)!.parentId, ids[0]);
      const p1 = await list(ctx, post, '?page=1&limit=3');
      const p3 = await list(ctx, post, '?page=3&limit=3');
      assert.deepEqual(
        p1.comments.map((c) => c.id),
        expected.slice(0, 3),
      );
      assert.deepEqual(
        p3.comments.map((c) => c.id),
        expected.slice(6),
      );
      assert.deepEqual([p3.total, p3.page, p3.totalPages], [7, 3, 3]);
      assert.deepEqual((await list(ctx, post, '?page=4&limit=3')).comments, []);
      assertError(await ctx.app.inject({ url: `/api/posts/${post}/comments?limit=0` }), 400);
      assertError(await ctx.app.inject({ url: '/api/posts/999999/comments' }), 404);
    });

    test('a parentId from another post is 400 naming parentId; nothing is written', async () => {
      const onB = await commentOk(ctx, alice, postB, 'on B');
      const before = (await list(ctx, postA)).total;
      const res = await comment(ctx, bob.headers, { postId: postA, content: 'cross-post reply', parentId: onB.id });
      assertBadField(res, 'parentId');
      await assertCommentCount(ctx, postA, before);
      assert.equal(await replyCountOf(ctx, postB, onB.id), 0, "the other post's comment gained no reply");
    });

    test('an unknown post or an unknown parent is 404', async () => {
      assertError(await comment(ctx, bob.headers, { postId: '999999', content: 'hello' }), 404);
      assertError(await comment(ctx, bob.headers, { postId: 'nope', content: 'hello' }), 404);
      assertError(await comment(ctx, bob.headers, { postId: postA, content: 'hello', parentId: '999999' }), 404);
      assertError(await comment(ctx, bob.headers, { postId: postA, content: 'hello', parentId: 'x1' }), 404);
    });

    test('empty, all-space and over-long content is 400 naming content; 5,000 characters is fine', async () => {
      for (const content of ['', '    ', '\n\t ', 'x'.repeat(5001)]) {
        assertBadField(await comment(ctx, bob.headers, { postId: postA, content }), 'content');
      }
      assertBadField(await comment(ctx, bob.headers, { postId: postA }), 'content');
      const long = await comment(ctx, bob.headers, { postId: postA, content: 'y'.repeat(5000) });
      assert.equal(long.statusCode, 201, long.body);
      assert.equal(long.json().comment.content.length, 5000);
    });

    test('without a session or key, writing and deleting are 401; a bad key is 401', async () => {
      const c = await commentOk(ctx, alice, postA, 'stays');
      assertError(await comment(ctx, {}, { postId: postA, content: 'anon' }), 401);
      assertError(await comment(ctx, { 'x-api-key': 'ib_not-a-key' }, { postId: postA, content: 'anon' }), 401);
      assertError(await remove(ctx, {}, c.id), 401);
      assert.ok((await list(ctx, postA, '?limit=100')).comments.some((x) => x.id === c.id));
    });

    test('another user may not delete a comment (403); its author and a moderator may', async () => {
      const post = String(await createPost(ctx.database, { uploaderId: Number(bob.id), createdAt: ctx.clock.now() }));
      const mine = await commentOk(ctx, alice, post, 'alice says');
      const other = await commentOk(ctx, alice, post, 'alice again');
      assertError(await remove(ctx, bob.headers, mine.id), 403);
      await assertCommentCount(ctx, post, 2);
      assert.equal((await remove(ctx, alice.headers, mine.id)).statusCode, 200);
      assert.equal((await remove(ctx, mod.headers, other.id)).statusCode, 200);
      await assertCommentCount(ctx, post, 0);
      assertError(await remove(ctx, alice.headers, mine.id), 404);
      assertError(await remove(ctx, alice.headers, 'abc'), 404);
    });

    test('deleting a comment removes its whole thread; counts stay exact', async () => {
      const post = String(await createPost(ctx.database, { uploaderId: Number(alice.id), createdAt: ctx.clock.now() }));
      const keep = await commentOk(ctx, alice, post, 'kept');
      const top = await commentOk(ctx, alice, post, 'top');
      const r1 = await commentOk(ctx, bob, post, 'r1', top.id);
      const r2 = await commentOk(ctx, bob, post, 'r2', top.id);
      const r11 = await commentOk(ctx, alice, post, 'r1.1', r1.id);
      await commentOk(ctx, bob, post, 'r1.1.1', r11.id);
      const keepReply = await commentOk(ctx, bob, post, 'reply to kept', keep.id);
      await assertCommentCount(ctx, post, 7);

      // A reply with its own sub-thread: the parent loses one reply, the post loses three comments.
      assert.equal((await remove(ctx, bob.headers, r1.id)).statusCode, 200);
      assert.equal(await replyCountOf(ctx, post, top.id), 1);
      await assertCommentCount(ctx, post, 4);
      assert.deepEqual(
        (await list(ctx, post)).comments.map((c) => c.id),
        [keep.id, top.id, r2.id, keepReply.id],
      );

      // A top-level comment goes with its remaining reply; the other thread is untouched.
      assert.equal((await remove(ctx, alice.headers, top.id)).statusCode, 200);
      await assertCommentCount(ctx, post, 2);
      assert.equal(await replyCountOf(ctx, post, keep.id), 1);

      // New replies after deletions keep counting from the right number.
      await commentOk(ctx, alice, post, 'another', keep.id);
      assert.equal(await replyCountOf(ctx, post, keep.id), 2);
      await assertCommentCount(ctx, post, 3);
      const profile = (await getJson(ctx.app, '/api/users/bob')).body;
      const bobRows = await ctx.database
        .selectFrom('comments')
        .select(sql<number>`count(*)`.as('n'))
        .where('user_id', '=', Number(bob.id))
        .executeTakeFirstOrThrow();
      assert.equal(profile.stats.comments, Number(bobRows.n));
    });

    test('concurrent replies to one comment keep replyCount and the post count exact', async () => {
      const post = String(await createPost(ctx.database, { uploaderId: Number(alice.id), createdAt: ctx.clock.now() }));
      const top = await commentOk(ctx, alice, post, 'top');
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => comment(ctx, (i % 2 ? alice : bob).headers, { postId: post, content: `r${i}`, parentId: top.id })),
      );
      assert.deepEqual(
        results.map((r) => r.statusCode),
        Array(12).fill(201),
      );
      assert.equal(await replyCountOf(ctx, post, top.id), 12);
      await assertCommentCount(ctx, post, 13);
    });

    test('deleting a thread while replies to it arrive: each reply is 201 or 404, and counts stay exact', async () => {
      for (let round = 0; round < 3; round++) {
        const post = String(await createPost(ctx.database, { uploaderId: Number(alice.id), createdAt: ctx.clock.now() }));
        const keep = await commentOk(ctx, alice, post, 'kept');
        const top = await commentOk(ctx, alice, post, 'top');
        const r1 = await commentOk(ctx, bob, post, 'r1', top.id);
        const replies = Array.from({ length: 8 }, (_, i) =>
          comment(ctx, bob.headers, { postId: post, content: `late ${i}`, parentId: i % 2 ? r1.id : top.id }),
        );
        const [del, ...rest] = await Promise.all([remove(ctx, alice.headers, top.id), ...replies]);
        assert.equal(del.statusCode, 200, del.body);
        for (const r of rest) assert.ok([201, 404].includes(r.statusCode), `reply: ${r.statusCode} ${r.body}`);
        await assertCommentCount(ctx, post, 1);
        assert.deepEqual(
          (await list(ctx, post)).comments.map((c) => c.id),
          [keep.id],
        );
      }
    });
  },
  { rateLimits: false },
);
