import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { register } from '../../../test/auth-helpers.ts';
import { addFavorite, addLike, createPost, createUser } from '../../../test/factories.ts';
import { eachDatabase } from '../../../test/helpers.ts';

/**
 * GET /api/posts/<id> is written as bytes from the post's row (post-detail-bytes.ts); with
 * `neighbours` the same post goes through the route's schema serializer. The post's own fields
 * must be the same bytes both ways, whatever its text, media and relations hold.
 */
eachDatabase('a post detail written as bytes is what the schema serializer writes', (ctx) => {
  const ids: number[] = [];
  before(async () => {
    const db = ctx.database;
    const u = await createUser(db, { username: 'détail_ユーザー' });
    const at = ctx.clock.now() - 60_000;
    ids.push(await createPost(db, { uploaderId: u, title: 'plain', tags: ['solo'], createdAt: at }));
    ids.push(
      await createPost(db, {
        uploaderId: u,
        title: 'Quotes " and \\ back\nslash, tab\t, emoji 🐱 and ünïcödé',
        description: 'a "long" description\r\nwith a control \u0001 character and text past ASCII: 猫',
        tags: ['cat_(animal)', 'zz_top', 'artist_name', 'ünï'],
        createdAt: at + 1000,
      }),
    );
    ids.push(await createPost(db, { uploaderId: u, title: 'a clip', mediaType: 'video', fileSize: 3_000_000_000, tags: [], createdAt: at + 2000 }));
    ids.push(await createPost(db, { uploaderId: u, title: 'a child', createdAt: at + 3000 }));
    await db
      .updateTable('posts')
      .set({ duration: 12.345, codecs: 'h264,aac', preview_path: 'previews/ab/cd/x.webp', source: 'https://example.com/a?b="c"' })
      .where('id', '=', ids[2])
      .execute();
    await db.updateTable('posts').set({ parent_id: ids[0] }).where('id', 'in', [ids[1], ids[3]]).execute();
    await db.updateTable('tags').set({ category: 'artist' }).where('name', '=', 'artist_name').execute();
  });

  test('every field, for a visitor and for a user who likes and favours the post', async () => {
    const member = await register(ctx.app, `detail_fan_${ctx.kind}`);
    await addLike(ctx.database, Number(member.id), ids[1], ctx.clock.now());
    await addFavorite(ctx.database, Number(member.id), ids[2], ctx.clock.now());
    for (const headers of [{}, member.headers]) {
      for (const id of ids) {
        const alone = await ctx.app.inject({ method: 'GET', url: `/api/posts/${id}`, headers });
        const listed = await ctx.app.inject({ method: 'GET', url: `/api/posts/${id}?neighbours=1`, headers });
        assert.equal(alone.statusCode, 200, alone.body);
        assert.equal(alone.headers['content-type'], 'application/json; charset=utf-8');
        const { neighbours, ...own } = listed.json();
        assert.ok(neighbours, 'the serializer path gave neighbours');
        // JSON.parse keeps the serializer's key order, and JSON.stringify writes it back the same way.
        assert.equal(alone.body, JSON.stringify(own), `post ${id}`);
      }
    }
    const post = (await ctx.app.inject({ method: 'GET', url: `/api/posts/${ids[1]}`, headers: member.headers })).json();
    assert.deepEqual([post.liked, post.favorited, post.parentId], [true, false, String(ids[0])]);
    assert.deepEqual(
      post.tagDetails.map((t: { name: string; category: string; postsCount: number }) => [t.name, t.category, t.postsCount]),
      [
        ['artist_name', 'artist', 1],
        ['cat_(animal)', 'general', 1],
        ['zz_top', 'general', 1],
        ['ünï', 'general', 1],
      ],
    );
    const parent = (await ctx.app.inject({ method: 'GET', url: `/api/posts/${ids[0]}` })).json();
    assert.deepEqual(parent.children, [String(ids[1]), String(ids[3])]);
  });

  test('a post that does not exist, or an id that names none, is a 404', async () => {
    for (const id of ['99999999', 'abc', '0']) {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/posts/${id}` });
      assert.equal(res.statusCode, 404, id);
      assert.equal(res.json().status, 404);
    }
  });
});
