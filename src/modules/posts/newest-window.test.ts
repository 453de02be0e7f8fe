import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type Ctx, eachDatabase, postsService } from '../../../test/helpers.ts';
import { addComment, addFavorite, addLike, createPost, createUser } from '../../../test/factories.ts';
import type { Viewer } from '../../core/deps.ts';
import { createPostsService, type PostsService } from './posts.service.ts';
import { READS_BEFORE_BUILD } from '../../core/rebuild-on-misses.ts';
import { deletePost, editPost } from './posts.edit.ts';

const PAGES: [number, number][] = [
  [0, 24],
  [5, 10],
  [20, 100],
  [33, 5],
];

/**
 * GET /api/posts's pages from the window (bytes), read often enough for it to be built, against
 * the same pages read by the database (the service's text list, which never uses the window).
 */
async function sameAsDatabase(service: PostsService, what: string): Promise<void> {
  for (const [offset, limit] of PAGES) {
    let body: string | Buffer = '';
    for (let i = 0; i < READS_BEFORE_BUILD + 1; i++) body = await service.listFor(null, { offset, limit });
    assert.ok(Buffer.isBuffer(body), `${what}: offset ${offset} comes from the window`);
    assert.equal(body.toString(), await service.list({ offset, limit }), `${what}: offset ${offset}, limit ${limit}`);
  }
}

function windowFollowsWrites(config: { mediaPublicUrl?: string }) {
  return (ctx: Ctx) => {
    let uploader: number;
    let moderator: Viewer;
    const posts: number[] = [];
    before(async () => {
      uploader = await createUser(ctx.database, { username: 'window_up' });
      moderator = {
        id: await createUser(ctx.database, { username: 'window_mod', role: 'moderator' }),
        username: 'window_mod',
        role: 'moderator',
        tier: 'free',
      };
      for (let i = 0; i < 40; i++) {
        posts.push(
          await createPost(ctx.database, {
            uploaderId: uploader,
            title: `w${i} «ü»`,
            tags: [`t${i % 3}`, 'shared'],
            createdAt: ctx.clock.now() - (40 - i) * 1000,
          }),
        );
      }
    });

    test('pages served from the window are the pages the database gives, with the media base', async () => {
      const service = postsService(ctx.app.deps);
      await sameAsDatabase(service, 'as created');
      const first = JSON.parse((await service.listFor(null, { limit: 1 })).toString());
      assert.equal(first.posts[0].id, String(posts[39]));
      if (config.mediaPublicUrl) assert.ok(first.posts[0].thumbnail.startsWith(config.mediaPublicUrl), first.posts[0].thumbnail);
    });

    test('a page with posts past the window comes from the database, the same page', async () => {
      const service = createPostsService(ctx.app.deps, { windowPosts: 8 });
      for (const [offset, limit, fromWindow] of [
        [0, 8, true],
        [2, 5, true],
        [5, 10, false],
        [20, 5, false],
      ] as const) {
        let body: string | Buffer = '';
        for (let i = 0; i < READS_BEFORE_BUILD + 1; i++) body = await service.listFor(null, { offset, limit });
        assert.equal(Buffer.isBuffer(body), fromWindow, `offset ${offset}, limit ${limit}`);
        assert.equal(body.toString(), await service.list({ offset, limit }), `offset ${offset}, limit ${limit}`);
      }
    });

    test('likes, favourites and comments show at once; edits, uploads and deletes once read again', async () => {
      const service = postsService(ctx.app.deps);
      await sameAsDatabase(service, 'before');
      const fan = await createUser(ctx.database, { username: 'window_fan' });
      await addLike(ctx.database, fan, posts[38], ctx.clock.now());
      await addFavorite(ctx.database, fan, posts[37], ctx.clock.now());
      await addComment(ctx.database, { postId: posts[36], userId: fan, createdAt: ctx.clock.now() });
      // No reads of the window in between: the counts follow the count log on the next page.
      const page = JSON.parse((await service.listFor(null, { limit: 5 })).toString());
      assert.deepEqual(
        page.posts.slice(1, 4).map((p: { likes: number; favorites: number; comments: number }) => [p.likes, p.favorites, p.comments]),
        [
          [1, 0, 0],
          [0, 1, 0],
          [0, 0, 1],
        ],
      );
      await sameAsDatabase(service, 'after likes');

      await editPost(ctx.app.deps, moderator, String(posts[35]), { title: 'renamed in the window' });
      await deletePost(ctx.app.deps, moderator, String(posts[30]));
      posts.push(await createPost(ctx.database, { uploaderId: uploader, title: 'newest of all', createdAt: ctx.clock.now() }));
      await sameAsDatabase(service, 'after an edit, a delete and an upload');
      const now = JSON.parse((await service.listFor(null, { limit: 40 })).toString());
      const titles = now.posts.map((p: { title: string }) => p.title);
      assert.equal(titles[0], 'newest of all');
      assert.ok(titles.includes('renamed in the window'));
      assert.ok(!now.posts.some((p: { id: string }) => p.id === String(posts[30])));
    });
  };
}

eachDatabase('the newest window, on a board written to between reads', (ctx) => {
  test('pages come from the database until a few reads meet one data version', async () => {
    const uploader = await createUser(ctx.database, { username: 'busy_up' });
    const service = postsService(ctx.app.deps);
    const upload = async () => createPost(ctx.database, { uploaderId: uploader, title: 'busy', createdAt: ctx.clock.now() });
    await upload();
    // The first read at a new version asks the window twice: its search runs again at the version it found.
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < READS_BEFORE_BUILD - 2; i++) assert.equal(typeof (await service.listFor(null, { limit: 5 })), 'string', `round ${round}, read ${i}`);
      await upload();
    }
    for (let i = 0; i < READS_BEFORE_BUILD - 2; i++) await service.listFor(null, { limit: 5 });
    assert.ok(Buffer.isBuffer(await service.listFor(null, { limit: 5 })));
  });
});

eachDatabase('the newest window', windowFollowsWrites({}));
eachDatabase('the newest window, media under a public base', windowFollowsWrites({ mediaPublicUrl: 'https://cdn.example/m/' }), {
  mediaPublicUrl: 'https://cdn.example/m/',
});
