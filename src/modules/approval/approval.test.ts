import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../app.ts';
import { anotherInstance, eachDatabase, getJson, mediaStored, type Ctx } from '../../../test/helpers.ts';
import { assertError, setAccount } from '../../../test/auth-helpers.ts';
import { auditEntries, ban, cast, unban } from '../../../test/moderation-helpers.ts';
import { approve, pendingQueue, reject, upload, uploaded } from '../../../test/approval-helpers.ts';
import { multipart } from '../../../test/multipart.ts';
import * as fx from '../../../test/media-fixtures.ts';

/** The ids GET /api/posts lists for a query string, and its total. */
async function listed(app: App, query: string, headers: Record<string, string> = {}) {
  const res = await getJson(app, `/api/posts?${query}`, headers);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { ids: res.body.posts.map((p: { id: string }) => p.id) as string[], total: res.body.totalPosts as number };
}

const q = (text: string) => `q=${encodeURIComponent(text)}`;

/** Everything a visitor could learn a post from, besides GET /api/posts/<id>: which of them show `id` (its tag: `tag`, its uploader: `uploader`). */
async function seenAnywhere(app: App, id: string, tag: string, uploader: string, file: Buffer) {
  const newest = await listed(app, 'limit=100');
  const byTag = await listed(app, `q=${tag}&limit=100`);
  const byOldTag = await listed(app, `tag=${tag}&limit=100`);
  const tags = (await getJson(app, `/api/tags?search=${tag}`)).body.tags as { name: string; postsCount: number }[];
  const profile = (await getJson(app, `/api/users/${uploader}`)).body;
  const m = multipart({}, [{ filename: 'a.png', data: file }]);
  const similar = await app.inject({ method: 'POST', url: '/api/search/similar', payload: m.payload, headers: m.headers });
  assert.equal(similar.statusCode, 200, similar.body);
  const danbooru = await getJson(app, `/posts.json?tags=${tag}`);
  assert.equal(danbooru.status, 200, JSON.stringify(danbooru.body));
  return {
    newest: newest.ids.includes(id),
    search: byTag.ids.includes(id),
    tagFilter: byOldTag.ids.includes(id),
    tagCount: tags.find((t) => t.name === tag)?.postsCount ?? 0,
    uploads: profile.stats.uploads as number,
    similar: (similar.json().posts as { id: string }[]).some((p) => p.id === id),
    danbooru: (danbooru.body as { id: number }[]).some((p) => String(p.id) === id),
  };
}

const HIDDEN = { newest: false, search: false, tagFilter: false, tagCount: 0, uploads: 0, similar: false, danbooru: false };
const SHOWN = { newest: true, search: true, tagFilter: true, tagCount: 1, uploads: 1, similar: true, danbooru: true };

eachDatabase(
  {
    title: 'upload approval (UPLOAD_APPROVAL=all)',
    fleet: "a post approved on one instance is published in every instance's kept sets; two moderators approve at once",
  },
  (ctx: Ctx) => {
    const who = cast(ctx);
    let second: App;

    before(async () => {
      // A second instance on the same database: what one publishes, the other's in-memory indexes see.
      second = await anotherInstance(ctx);
    });
    after(() => second?.close());

    test("a member's upload is held: 201 with post.pending and a message saying so; nobody but its uploader and the moderators sees it anywhere", async () => {
      const file = await fx.png(4100, 64, 48);
      const status = async () => (await getJson(ctx.app, '/api/public/status')).body.totalPosts as number;
      const posts = await status();
      const res = await upload(ctx.app, who.owner, 'held_alone', file);
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.deepEqual(Object.keys(body.post).sort(), ['id', 'imageUrl', 'mediaType', 'pending', 'thumbnailUrl', 'title']);
      assert.equal(body.post.pending, true);
      assert.match(body.message, /approval/);
      const id: string = body.post.id;

      for (const app of [ctx.app, second]) assert.deepEqual(await seenAnywhere(app, id, 'held_alone', 'olive', file), HIDDEN);
      assert.equal(await status(), posts, 'the public statistics do not count it');
      for (const headers of [{}, who.member.headers]) assertError(await ctx.app.inject({ method: 'GET', url: `/api/posts/${id}`, headers }), 404);
      for (const [name, headers] of [
        ['uploader', who.owner.headers],
        ['moderator', who.mod.headers],
        ['admin', who.admin.headers],
      ] as const) {
        const detail = await getJson(second, `/api/posts/${id}`, headers);
        assert.equal(detail.status, 200, `${name}: ${JSON.stringify(detail.body)}`);
        assert.equal(detail.body.pending, true, name);
        assert.deepEqual([detail.body.id, detail.body.tags, detail.body.author.username], [id, ['held_alone'], 'olive']);
      }
      // The media are stored as for any upload (the uploader's page shows them).
      assert.ok(await mediaStored(ctx, body.post.imageUrl));
      // Reactions, comments and edits find no post until it is published, for its uploader too.
      assertError(await ctx.app.inject({ method: 'PUT', url: `/api/posts/${id}/like`, headers: who.owner.headers }), 404);
      assertError(await ctx.app.inject({ method: 'POST', url: '/api/comments', headers: who.owner.headers, payload: { postId: id, content: 'hi' } }), 404);
      assertError(await ctx.app.inject({ method: 'PATCH', url: `/api/posts/${id}`, headers: who.owner.headers, payload: { title: 'x' } }), 404);

      const queue = await pendingQueue(ctx.app, who.mod.headers);
      assert.equal(queue.statusCode, 200, queue.body);
      const item = queue.json().posts.find((p: { id: string }) => p.id === id);
      assert.deepEqual(
        { ...item, createdAt: undefined },
        {
          id,
          title: 'upload held_alone',
          thumbnail: body.post.thumbnailUrl,
          uploader: { username: 'olive' },
          createdAt: undefined,
          tags: ['held_alone'],
          contentRating: 'safe',
        },
      );
      const mine = await ctx.app.inject({ method: 'GET', url: '/api/users/me/pending', headers: who.owner.headers });
      assert.ok(mine.json().posts.some((p: { id: string }) => p.id === id));
      const others = await ctx.app.inject({ method: 'GET', url: '/api/users/me/pending', headers: who.member.headers });
      assert.deepEqual(others.json().posts, []);
    });

    test('who may approve and reject: anonymous 401, a member 403, its own uploader 403 even as a moderator, a banned moderator 403; a moderator and an admin may', async () => {
      const { id } = await uploaded(ctx.app, who.owner, 'held_rules');
      assertError(await approve(ctx.app, {}, id), 401);
      assertError(await reject(ctx.app, {}, id), 401);
      assertError(await approve(ctx.app, who.member.headers, id), 403);
      assertError(await reject(ctx.app, who.member.headers, id), 403);
      assertError(await approve(ctx.app, who.owner.headers, id), 403);
      assertError(await pendingQueue(ctx.app, {}), 401);
      assertError(await pendingQueue(ctx.app, who.member.headers), 403);
      await setAccount(ctx.database, 'olive', { role: 'moderator' });
      try {
        const own = await approve(ctx.app, who.owner.headers, id);
        assertError(own, 403);
        assert.match(own.json().error, /own upload/);
      } finally {
        await setAccount(ctx.database, 'olive', { role: 'user' });
      }
      assert.equal((await ban(ctx.app, who.admin.headers, 'mod', { reason: 'rogue' })).statusCode, 200);
      try {
        assertError(await approve(ctx.app, who.mod.headers, id), 403);
        assertError(await reject(ctx.app, who.mod.headers, id), 403);
      } finally {
        assert.equal((await unban(ctx.app, who.admin.headers, 'mod')).statusCode, 200);
      }
      assert.equal((await getJson(ctx.app, `/api/posts/${id}`, who.owner.headers)).body.pending, true, 'still pending after every refusal');
      const ok = await approve(ctx.app, who.admin.headers, id);
      assert.equal(ok.statusCode, 200, ok.body);
      const { id: other } = await uploaded(ctx.app, who.owner, 'held_rules_2');
      assert.equal((await approve(ctx.app, who.mod.headers, other)).statusCode, 200);
    });

    test('approving publishes it under its id with its upload time, tags counted, everywhere and on every instance; audited; a second approval is 409, an unknown post 404', async () => {
      const file = await fx.png(4200, 64, 48);
      const uploadedAt = ctx.clock.now();
      const { id, pending } = await uploaded(ctx.app, who.owner, 'held_pub, artist:held_artist', file);
      assert.equal(pending, true);
      const profileBefore = (await getJson(ctx.app, '/api/users/olive')).body.stats.uploads as number;
      // Both instances have read their indexes while the post was held.
      for (const app of [ctx.app, second]) assert.equal((await seenAnywhere(app, id, 'held_pub', 'olive', file)).search, false);
      ctx.clock.advance(60_000);
      const res = await approve(ctx.app, who.mod.headers, id);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().id, id);
      assert.equal(res.json().pending, undefined);
      assert.equal(res.json().createdAt, new Date(uploadedAt).toISOString(), 'it keeps its upload time');
      assert.deepEqual(res.json().tags, ['held_artist', 'held_pub']);
      for (const app of [ctx.app, second]) {
        assert.deepEqual(await seenAnywhere(app, id, 'held_pub', 'olive', file), { ...SHOWN, uploads: profileBefore + 1 });
        assert.equal((await getJson(app, `/api/posts/${id}`)).status, 200, 'anonymous sees it');
      }
      const [entry] = await auditEntries(ctx.app, who.mod.headers, `?action=post.approve&target=post:${id}`);
      assert.deepEqual(
        [entry.actor, entry.target, entry.details],
        [{ username: 'mod' }, `post:${id}`, { title: 'upload held_pub, artist:held_artist', uploader: 'olive' }],
      );
      const again = await approve(ctx.app, who.admin.headers, id);
      assertError(again, 409);
      assert.match(again.json().error, /published/);
      assertError(await reject(ctx.app, who.admin.headers, id), 409);
      assertError(await approve(ctx.app, who.admin.headers, '99999999'), 404);
      assert.equal(
        (await pendingQueue(ctx.app, who.mod.headers)).json().posts.some((p: { id: string }) => p.id === id),
        false,
      );
    });

    test('rejecting deletes it with its media (404 after, audited with the reason); its uploader withdraws their own with DELETE, nobody else can', async () => {
      const { id } = await uploaded(ctx.app, who.owner, 'held_rej');
      const detail = (await getJson(ctx.app, `/api/posts/${id}`, who.owner.headers)).body;
      const res = await reject(ctx.app, who.mod.headers, id, { reason: 'off topic' });
      assert.equal(res.statusCode, 204, res.body);
      for (const url of [detail.imageUrl, detail.thumbnail, detail.previewUrl]) assert.equal(await mediaStored(ctx, url), false, url);
      for (const headers of [who.owner.headers, who.mod.headers]) assertError(await ctx.app.inject({ method: 'GET', url: `/api/posts/${id}`, headers }), 404);
      assertError(await reject(ctx.app, who.mod.headers, id), 404);
      const [entry] = await auditEntries(ctx.app, who.mod.headers, `?action=post.reject&target=post:${id}`);
      assert.deepEqual(entry.details, { title: 'upload held_rej', uploader: 'olive', reason: 'off topic' });

      const { id: mine } = await uploaded(ctx.app, who.owner, 'held_withdrawn');
      assertError(await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${mine}`, headers: who.member.headers }), 404);
      const withdrawn = await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${mine}`, headers: who.owner.headers });
      assert.equal(withdrawn.statusCode, 200, withdrawn.body);
      assertError(await ctx.app.inject({ method: 'GET', url: `/api/posts/${mine}`, headers: who.owner.headers }), 404);
      assert.deepEqual(await auditEntries(ctx.app, who.mod.headers, `?target=post:${mine}`), [], "an uploader's own withdrawal is not moderation");
    });

    test('the same bytes again: 409 naming the held post to its uploader and the moderators, without its id to anyone else', async () => {
      const file = await fx.png(4300, 64, 48);
      const { id } = await uploaded(ctx.app, who.owner, 'held_dup', file);
      const mine = await upload(ctx.app, who.owner, 'held_dup', file);
      assertError(mine, 409);
      assert.equal(mine.json().postId, id);
      const theirs = await upload(ctx.app, who.member, 'held_dup', file);
      assertError(theirs, 409);
      assert.equal(theirs.json().postId, undefined);
      assert.doesNotMatch(theirs.json().error, new RegExp(`\\b${id}\\b`));
      const mods = await upload(ctx.app, who.mod, 'held_dup', file);
      assertError(mods, 409);
      assert.equal(mods.json().postId, id);
    });

    test('two moderators approving at once: one wins, the other gets 409, and the post is published once', async () => {
      const { id } = await uploaded(ctx.app, who.owner, 'held_race');
      const both = await Promise.all([approve(ctx.app, who.mod.headers, id), approve(second, who.admin.headers, id)]);
      assert.deepEqual(both.map((r) => r.statusCode).sort(), [200, 409], both.map((r) => r.body).join(' | '));
      const tag = (await getJson(ctx.app, '/api/tags?search=held_race')).body.tags[0];
      assert.equal(tag.postsCount, 1);
      assert.deepEqual((await listed(ctx.app, 'q=held_race')).ids, [id]);
      assert.equal((await auditEntries(ctx.app, who.mod.headers, `?action=post.approve&target=post:${id}`)).length, 1);
    });

    test('a post published with an id below the newest takes its place by date: newest order, search, `before=` paging and counts stay right on every instance, with a delete in the same moment', async () => {
      const warm = async () => {
        for (const app of [ctx.app, second]) {
          await listed(app, 'limit=100');
          await listed(app, 'q=held_order&limit=100');
          await listed(app, q('held_order order:likes'));
          await listed(app, `${q('order:likes')}&limit=3`);
          await listed(app, 'sortBy=most_liked&limit=3');
        }
      };
      const held = await uploaded(ctx.app, who.owner, 'held_order');
      ctx.clock.advance(1000);
      // Moderators are never held: these are published at once, with higher ids.
      const b = await uploaded(ctx.app, who.mod, 'held_order');
      ctx.clock.advance(1000);
      const doomed = await uploaded(ctx.app, who.mod, 'held_order');
      ctx.clock.advance(1000);
      const c = await uploaded(ctx.app, who.mod, 'held_order');
      assert.deepEqual([b.pending, c.pending], [false, false]);
      assert.ok(Number(held.id) < Number(b.id));
      await warm();
      const before = await listed(ctx.app, 'limit=100');
      // A delete and a publication between two reads: the number of posts and the highest id are as they were.
      const del = await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${doomed.id}`, headers: who.mod.headers });
      assert.equal(del.statusCode, 200, del.body);
      assert.equal((await approve(ctx.app, who.admin.headers, held.id)).statusCode, 200);
      for (const app of [ctx.app, second]) {
        const all = await listed(app, 'limit=100');
        assert.equal(all.total, before.total);
        assert.deepEqual(all.ids.slice(0, 3), [c.id, b.id, held.id], 'newest first, by date');
        assert.deepEqual((await listed(app, 'q=held_order')).ids, [c.id, b.id, held.id]);
        assert.deepEqual((await listed(app, q('held_order order:id'))).ids, [c.id, b.id, held.id]);
        assert.deepEqual((await listed(app, `q=held_order&before=${b.id}`)).ids, [held.id]);
        assert.deepEqual((await listed(app, `before=${b.id}&limit=1`)).ids, [held.id]);
        assert.deepEqual((await listed(app, q('held_order -rating:unsafe'))).ids, [c.id, b.id, held.id]);
        assert.deepEqual((await listed(app, q('held_order order:likes'))).ids, [c.id, b.id, held.id], 'no likes: by id among equals');
        assert.deepEqual((await listed(app, 'sortBy=most_liked&limit=3')).ids, [c.id, b.id, held.id]);
        assert.deepEqual((await listed(app, `${q('order:likes')}&limit=3`)).ids, [c.id, b.id, held.id]);
        assert.deepEqual((await listed(app, q('held_order user:olive'))).ids, [held.id]);
        assert.deepEqual((await listed(app, q('held_order rating:safe'))).ids, [c.id, b.id, held.id]);
        assert.deepEqual((await listed(app, `search=${encodeURIComponent('upload held_order')}&sortBy=oldest`)).ids, [held.id, b.id, c.id]);
      }
    });
  },
  { uploadApproval: 'all' },
);

eachDatabase(
  'upload approval (UPLOAD_APPROVAL=new-users)',
  (ctx: Ctx) => {
    const who = cast(ctx);

    test('a user with fewer published posts than UPLOAD_APPROVAL_MIN_POSTS is held until enough are approved; moderators and admins never are', async () => {
      const first = await uploaded(ctx.app, who.member, 'new_one');
      const second = await uploaded(ctx.app, who.member, 'new_two');
      assert.deepEqual([first.pending, second.pending], [true, true]);
      assert.equal((await approve(ctx.app, who.mod.headers, first.id)).statusCode, 200);
      assert.equal((await uploaded(ctx.app, who.member, 'new_three')).pending, true, 'one published post of two');
      assert.equal((await approve(ctx.app, who.mod.headers, second.id)).statusCode, 200);
      const trusted = await upload(ctx.app, who.member, 'new_four');
      assert.equal(trusted.statusCode, 201, trusted.body);
      assert.deepEqual(trusted.json().message, 'Upload successful');
      assert.equal(trusted.json().post.pending, undefined);
      assert.equal((await getJson(ctx.app, `/api/posts/${trusted.json().post.id}`)).status, 200);
      for (const staff of [who.mod, who.admin]) assert.equal((await uploaded(ctx.app, staff, 'new_staff')).pending, false);
    });
  },
  { uploadApproval: 'new-users', uploadApprovalMinPosts: 2 },
);

eachDatabase('upload approval (UPLOAD_APPROVAL=off, the default)', (ctx: Ctx) => {
  const who = cast(ctx);

  test("nothing changes: a member's upload is published at once with the reference's answer, and the queue stays empty", async () => {
    const res = await upload(ctx.app, who.member, 'off_tag');
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(Object.keys(res.json()).sort(), ['message', 'post']);
    assert.equal(res.json().message, 'Upload successful');
    assert.deepEqual(Object.keys(res.json().post).sort(), ['id', 'imageUrl', 'mediaType', 'thumbnailUrl', 'title']);
    const detail = await getJson(ctx.app, `/api/posts/${res.json().post.id}`);
    assert.equal(detail.status, 200);
    assert.equal('pending' in detail.body, false);
    assert.deepEqual((await pendingQueue(ctx.app, who.mod.headers)).json().posts, []);
  });
});
