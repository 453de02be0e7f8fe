import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { eachDatabase, getJson } from '../../../test/helpers.ts';
import { memberHeaders } from '../../../test/auth-helpers.ts';
import { createPost, createUser } from '../../../test/factories.ts';

eachDatabase('post detail with its neighbours in a list', (ctx) => {
  const HOUR = 3_600_000;
  before(async () => {
    const uploader = await createUser(ctx.database, { username: 'nb' });
    // Ten posts an hour apart: even ones tagged cat, every third one rated unsafe, likes 10 - i.
    for (let i = 0; i < 10; i++) {
      await createPost(ctx.database, {
        uploaderId: uploader,
        createdAt: ctx.clock.now() - (10 - i) * HOUR,
        tags: i % 2 === 0 ? ['cat'] : ['dog'],
        rating: i % 3 === 0 ? 'unsafe' : 'safe',
        likeCount: 10 - i,
        title: `post ${i}`,
      });
    }
  });

  const list = async (query: string) =>
    (await getJson(ctx.app, `/api/posts?limit=100&${query}`, await memberHeaders(ctx.app))).body.posts.map((p: { id: string }) => p.id) as string[];
  const ids = (posts: { id: string }[]) => posts.map((p) => p.id);

  for (const query of ['', 'tag=cat', 'contentRating=safe', 'sortBy=most_liked&contentRating=safe', 'tag=dog&sortBy=oldest']) {
    test(`neighbours follow the list order of ?${query || '(all posts)'}`, async () => {
      const order = await list(query);
      for (const at of [0, 1, Math.floor(order.length / 2), order.length - 1]) {
        const res = await getJson(ctx.app, `/api/posts/${order[at]}?neighbours=2&at=${at}${query ? `&${query}` : ''}`, await memberHeaders(ctx.app));
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.body.id, order[at]);
        assert.deepEqual(ids(res.body.neighbours.before), order.slice(Math.max(0, at - 2), at).reverse(), `before ${at}`);
        assert.deepEqual(ids(res.body.neighbours.after), order.slice(at + 1, at + 3), `after ${at}`);
        for (const n of [...res.body.neighbours.before, ...res.body.neighbours.after]) assert.match(n.imageUrl, /^\/media\//, 'each neighbour is a whole post');
      }
    });
  }

  test('a position that no longer holds the post, or none, gives the posts uploaded around it within the filter', async () => {
    const order = await list('tag=cat');
    const wrong = await getJson(ctx.app, `/api/posts/${order[2]}?neighbours=1&at=40&tag=cat`, await memberHeaders(ctx.app));
    assert.deepEqual(ids(wrong.body.neighbours.before), [order[1]]);
    assert.deepEqual(ids(wrong.body.neighbours.after), [order[3]]);
    const none = await getJson(ctx.app, `/api/posts/${order[2]}?neighbours=1&tag=cat`, await memberHeaders(ctx.app));
    assert.deepEqual(ids(none.body.neighbours.before), [order[1]]);
    assert.deepEqual(ids(none.body.neighbours.after), [order[3]]);
  });

  test('without neighbours the answer is the post alone; a bad count is a 400', async () => {
    const [first] = await list('');
    const plain = await getJson(ctx.app, `/api/posts/${first}`, await memberHeaders(ctx.app));
    assert.equal(plain.status, 200);
    assert.equal('neighbours' in plain.body, false);
    assert.equal((await getJson(ctx.app, `/api/posts/${first}?neighbours=50`, await memberHeaders(ctx.app))).status, 400);
  });
});
