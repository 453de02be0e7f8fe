// A page's counts before the engine has read every post's (a scan of the posts table, which at ten
// million posts on a cold cache takes over a minute): the first page of the list must not wait for it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addComment, addLike, createPost, createUser } from '../../test/factories.ts';
import { eachDatabase } from '../../test/helpers.ts';
import { createEngineCore } from './engine.ts';
import { PostNumbers } from './sets/post-numbers.ts';

const START = Date.parse('2026-01-01T00:00:00Z');

/** Counts whose read of every post never ends, as a cold ten-million-post board's seems to. */
class EndlessRead extends PostNumbers {
  calls = 0;
  override current(): Promise<number> {
    this.calls++;
    return new Promise(() => {});
  }
}

eachDatabase('a page asks for counts before every post has been read', (ctx) => {
  test('the counts come from the posts asked for, and the read of every post starts behind', async () => {
    const user = await createUser(ctx.database, { username: 'counted' });
    const fans = [await createUser(ctx.database, { username: 'fan1' }), await createUser(ctx.database, { username: 'fan2' })];
    const liked = await createPost(ctx.database, { uploaderId: user, createdAt: START });
    const plain = await createPost(ctx.database, { uploaderId: user, createdAt: START + 1000 });
    for (const fan of fans) await addLike(ctx.database, fan, liked, START + 2000);
    await addComment(ctx.database, { postId: plain, userId: fans[0], createdAt: START + 3000 });

    const numbers = new EndlessRead();
    const core = createEngineCore(ctx.app.deps, { numbers });
    const counts = await core.countsOf([plain, liked, 999_999], plain);
    assert.deepEqual(counts, { likes: [0, 2, 0], favs: [0, 0, 0], comments: [1, 0, 0] });
    assert.equal(numbers.calls, 1, 'the read of every post was started');
  });
});
