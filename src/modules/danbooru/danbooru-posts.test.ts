import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, listeningPort, readMedia, type Ctx } from '../../../test/helpers.ts';
import { register, setAccount, type Account } from '../../../test/auth-helpers.ts';
import { createPost } from '../../../test/factories.ts';
import { patchTag, uploadTagged } from '../../../test/tag-helpers.ts';
import { comment } from '../../../test/moderation-helpers.ts';
import { span } from './danbooru-posts.ts';

const get = (ctx: Ctx, url: string) => ctx.app.inject({ url, headers: { host: 'board.example' } });

async function posts(ctx: Ctx, query: string): Promise<any[]> {
  const res = await get(ctx, `/posts.json?${query}`);
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.ok(Array.isArray(body));
  return body;
}

const ids = async (ctx: Ctx, query: string) => (await posts(ctx, query)).map((p) => p.id);

function assertDanbooruError(res: { statusCode: number; json(): any }, status: number) {
  assert.equal(res.statusCode, status);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message', 'success']);
  assert.equal(body.success, false);
  return body.message as string;
}

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;
const ABSOLUTE = /^http:\/\/board\.example\/media\/.+\/[0-9a-f]+\.[a-z0-9]+$/;

eachDatabase({ title: 'danbooru API: posts', fleet: 'each instance keeps the tag categories in memory, following tag history written by others' }, (ctx) => {
  let alice: Account;
  let mod: Account;
  const made: number[] = [];
  let video: number;
  before(async () => {
    alice = await register(ctx.app, 'alice');
    mod = await register(ctx.app, 'mod');
    await setAccount(ctx.database, 'mod', { role: 'moderator' });
    for (const tags of ['db_cat, db_artist_x', 'db_cat, db_dog', 'db_cat, re:zero', 'db_dog']) made.push(Number(await uploadTagged(ctx, alice, tags)));
    assert.equal((await patchTag(ctx, mod.headers, 'db_artist_x', { category: 'artist' })).statusCode, 200);
    await ctx.database.updateTable('posts').set({ content_rating: 'unsafe', like_count: 5 }).where('id', '=', made[1]).execute();
    video = await createPost(ctx.database, { uploaderId: Number(alice.id), mediaType: 'video', createdAt: ctx.clock.now(), tags: ['db_clip'] });
    await ctx.database.updateTable('posts').set({ preview_path: 'previews/ab/cd/clip.webp' }).where('id', '=', video).execute();
  });

  test('a post object has every field of Danbooru, typed, with tag strings by category and absolute URLs', async () => {
    const res = await get(ctx, `/posts/${made[0]}.json`);
    assert.equal(res.statusCode, 200, res.body);
    const p = res.json();
    assert.equal(p.id, made[0]);
    assert.match(p.created_at, TIME);
    assert.match(p.updated_at, TIME);
    assert.match(p.md5, /^[0-9a-f]{32}$/);
    assert.equal(p.rating, 'g');
    assert.equal(p.tag_string, 'db_artist_x db_cat');
    assert.equal(p.tag_string_artist, 'db_artist_x');
    assert.equal(p.tag_string_general, 'db_cat');
    assert.equal(p.tag_count, 2);
    assert.equal(p.tag_count_artist, 1);
    assert.equal(p.tag_count_general, 1);
    assert.equal(p.file_ext, 'png');
    assert.equal(p.image_width, 32);
    assert.equal(p.image_height, 24);
    for (const k of ['score', 'up_score', 'down_score', 'fav_count', 'file_size', 'uploader_id', 'bit_flags']) assert.equal(typeof p[k], 'number', k);
    for (const k of ['parent_id', 'last_comment_bumped_at', 'last_noted_at', 'approver_id', 'pixiv_id', 'last_commented_at']) assert.equal(p[k], null, k);
    for (const k of ['has_children', 'has_active_children', 'is_pending', 'is_flagged', 'is_deleted', 'is_banned']) assert.equal(p[k], false, k);
    assert.equal(p.source, '');
    for (const k of ['file_url', 'large_file_url', 'preview_file_url']) assert.match(p[k], ABSOLUTE, k);
    // A large file is our preview when the upload made one, else the original.
    assert.equal(p.has_large, p.large_file_url !== p.file_url);
    assert.deepEqual(
      p.media_asset.variants.map((v: any) => v.type),
      p.has_large ? ['180x180', 'sample', 'original'] : ['180x180', 'original'],
    );
    assert.equal(p.media_asset.md5, p.md5);
    assert.equal(p.media_asset.duration, null);
    // The file is there, at the URL given.
    const file = await ctx.app.inject({ url: new URL(p.file_url).pathname });
    assert.equal(file.statusCode, 200);
    const stored = await ctx.database.selectFrom('posts').select('file_path').where('id', '=', made[0]).executeTakeFirstOrThrow();
    assert.deepEqual(file.rawPayload, await readMedia(ctx, stored.file_path));
  });

  test('a video has a sample (our preview) as its large file, and its duration', async () => {
    const p = (await posts(ctx, 'tags=db_clip'))[0];
    assert.equal(p.id, video);
    assert.equal(p.file_ext, 'mp4');
    assert.equal(p.has_large, true);
    assert.match(p.large_file_url, /\/previews\/ab\/cd\/clip\.webp$/);
    assert.equal(p.media_asset.duration, 5);
    assert.deepEqual(
      p.media_asset.variants.map((v: any) => v.type),
      ['180x180', 'sample', 'original'],
    );
  });

  test("last_commented_at is the post's newest comment, kept as comments are added and deleted (a deleted newest gives the one before, none gives null)", async () => {
    const post = String(made[2]);
    const lastCommented = async () => (await get(ctx, `/posts/${post}.json`)).json().last_commented_at;
    assert.equal(await lastCommented(), null);
    const first = await comment(ctx.app, alice.headers, post, 'first');
    const firstAt = new Date(ctx.clock.now()).toISOString().replace('Z', '+00:00');
    assert.equal(await lastCommented(), firstAt);
    ctx.clock.advance(60_000);
    const second = await comment(ctx.app, mod.headers, post, 'second');
    const secondAt = new Date(ctx.clock.now()).toISOString().replace('Z', '+00:00');
    assert.equal(await lastCommented(), secondAt);
    // A page of posts reads it from the same row.
    assert.equal((await posts(ctx, `tags=id:${post}`))[0].last_commented_at, secondAt);
    // Another post's comment leaves this one's alone.
    await comment(ctx.app, alice.headers, String(made[3]), 'elsewhere');
    assert.equal(await lastCommented(), secondAt);
    assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/comments/${second}`, headers: mod.headers })).statusCode, 200);
    assert.equal(await lastCommented(), firstAt);
    assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/comments/${first}`, headers: alice.headers })).statusCode, 200);
    assert.equal(await lastCommented(), null);
    // A comment stamped earlier than the newest (an instance whose clock is behind) leaves the newest.
    const other = String(made[1]);
    await comment(ctx.app, alice.headers, other, 'on time');
    const onTime = new Date(ctx.clock.now()).toISOString().replace('Z', '+00:00');
    ctx.clock.advance(-30_000);
    try {
      await comment(ctx.app, mod.headers, other, 'from a clock behind');
    } finally {
      ctx.clock.advance(30_000);
    }
    assert.equal((await get(ctx, `/posts/${other}.json`)).json().last_commented_at, onTime);
  });

  test('a category changed after a page was read shows on the next (the categories kept in memory follow tag history)', async () => {
    assert.equal((await get(ctx, `/posts/${made[3]}.json`)).json().tag_string_general, 'db_dog');
    assert.equal((await patchTag(ctx, mod.headers, 'db_dog', { category: 'character' })).statusCode, 200);
    const p = (await get(ctx, `/posts/${made[3]}.json`)).json();
    assert.equal(p.tag_string_character, 'db_dog');
    assert.equal(p.tag_string_general, '');
  });

  test('pages answered at the same time over sockets are each whole and their own (their bytes are in buffers used again)', async () => {
    const port = await listeningPort(ctx);
    const queries = ['tags=db_cat', 'tags=db_dog', 'tags=db_cat+rating:e', 'tags=db_clip'];
    const expected = await Promise.all(queries.map((q) => ids(ctx, q)));
    const asked = Array.from({ length: 24 }, (_, i) => i % queries.length);
    const answers = await Promise.all(
      asked.map(async (k) => {
        const res = await fetch(`http://127.0.0.1:${port}/posts.json?${queries[k]}`, { headers: { host: 'board.example' } });
        assert.equal(res.status, 200);
        return ((await res.json()) as { id: number }[]).map((p) => p.id);
      }),
    );
    for (const [i, k] of asked.entries()) assert.deepEqual(answers[i], expected[k], queries[k]);
  });

  test('an unknown post is a 404 in Danbooru shape', async () => {
    assertDanbooruError(await get(ctx, '/posts/999999.json'), 404);
    assertDanbooruError(await get(ctx, '/posts/abc.json'), 404);
  });

  test("tags takes our language and Danbooru's spellings", async () => {
    assert.deepEqual(await ids(ctx, 'tags=db_cat'), [made[2], made[1], made[0]]);
    assert.deepEqual(await ids(ctx, 'tags=db_cat+rating:e'), [made[1]]);
    assert.deepEqual(await ids(ctx, 'tags=db_cat+rating:explicit'), [made[1]]);
    assert.deepEqual(await ids(ctx, 'tags=db_cat+-rating:questionable,explicit'), [made[2], made[0]]);
    assert.deepEqual(await ids(ctx, 'tags=db_cat+rating:general'), [made[2], made[0]]);
    assert.deepEqual(await ids(ctx, 'tags=db_cat+score:>1'), [made[1]]);
    assert.deepEqual(await ids(ctx, 'tags=db_cat+order:score'), [made[1], made[2], made[0]]);
    assert.deepEqual(await ids(ctx, 'tags=db_cat+favcount:0+status:any'), [made[2], made[1], made[0]]);
    assert.deepEqual(await ids(ctx, 'tags=db_cat+status:deleted'), []);
    assert.deepEqual(await ids(ctx, 'tags=db_cat+-status:deleted'), [made[2], made[1], made[0]]);
    assert.deepEqual(await ids(ctx, 'tags=re:zero'), [made[2]]);
    const message = assertDanbooruError(await get(ctx, '/posts.json?tags=db_cat+frobnicate:3'), 422);
    assert.match(message, /frobnicate/);
    const count = await get(ctx, '/counts/posts.json?tags=db_cat+rating:explicit');
    assert.deepEqual(count.json(), { counts: { posts: 1 } });
  });

  test('paging: limit clamped, pages past 1000 a 410, cursors b and a newest first ignoring order:', async () => {
    assert.equal((await posts(ctx, 'limit=500')).length, 5);
    assert.deepEqual(await ids(ctx, 'tags=db_cat&limit=1&page=2'), [made[1]]);
    assert.deepEqual(await ids(ctx, 'tags=db_cat&limit=0'), [made[2]]);
    const message = assertDanbooruError(await get(ctx, '/posts.json?page=1001'), 410);
    assert.equal(message, 'You can only view up to 1000 pages. Please narrow your search terms.');
    assertDanbooruError(await get(ctx, '/posts.json?page=x3'), 422);
    assert.deepEqual(await ids(ctx, `tags=db_cat+order:score&page=b${made[2]}`), [made[1], made[0]]);
    assert.deepEqual(await ids(ctx, `tags=db_cat&page=b${made[2]}&limit=1`), [made[1]]);
    assert.deepEqual(await ids(ctx, `tags=db_cat+order:score&page=a${made[0]}`), [made[2], made[1]]);
    assert.deepEqual(await ids(ctx, `tags=db_cat&page=a${made[0]}&limit=1`), [made[1]]);
  });

  test('popular: the span of the date by score, then newest', async () => {
    const today = new Date(ctx.clock.now()).toISOString().slice(0, 10);
    const res = await get(ctx, `/explore/posts/popular.json?date=${today}&scale=week`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json()[0].id, made[1]);
    const none = await get(ctx, '/explore/posts/popular.json?date=1990-01-01');
    assert.deepEqual(none.json(), []);
    assertDanbooruError(await get(ctx, '/explore/posts/popular.json?date=soon'), 422);
  });
});

test('popular spans: a week from its Monday, a month its calendar month', () => {
  assert.deepEqual(span('2026-11-25', 'day'), ['2026-11-25', '2026-11-25']);
  assert.deepEqual(span('2026-11-25', 'week'), ['2026-11-23', '2026-11-29']);
  assert.deepEqual(span('2026-11-23', 'week'), ['2026-11-23', '2026-11-29']);
  assert.deepEqual(span('2026-11-29', 'week'), ['2026-11-23', '2026-11-29']);
  assert.deepEqual(span('2024-02-10', 'month'), ['2024-02-01', '2024-02-29']);
});
