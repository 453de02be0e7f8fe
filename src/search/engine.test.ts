// What the engine says its kept sets hold (memory(): issue 59's bytes a post, issue 61's gauge).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { addLike, createPost, createUser } from '../../test/factories.ts';
import { eachDatabase } from '../../test/helpers.ts';
import { createSearchEngine, type SearchEngine } from './engine.ts';

const HOUR = 3_600_000;
const START = Date.parse('2026-01-01T00:00:00Z');
const KINDS = [
  'newestOrder',
  'tagBitmaps',
  'tagLists',
  'tagDecoded',
  'tagOther',
  'titleWords',
  'ratings',
  'kinds',
  'uploaders',
  'postCounts',
  'postLeaders',
  'totals',
  'heads',
  'lookups',
];
/**
 * The kinds that hold something of every post once the board has been searched (the leaders of
 * a count are read on boards where ranking every candidate costs more: not this one's).
 */
const OF_POSTS = ['newestOrder', 'tagBitmaps', 'tagLists', 'titleWords', 'ratings', 'kinds', 'uploaders', 'postCounts', 'lookups'];

const sum = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);

eachDatabase('the bytes the search engine keeps', (ctx) => {
  let uploader: number;
  let fan: number;
  let posts = 0;
  /** Posts titled and tagged alike: every post 'common', one in 20 'rare_N' (an id list), titles of a few words. */
  const addPosts = async (n: number) => {
    for (let k = 0; k < n; k++, posts++) {
      const i = posts;
      const id = await createPost(ctx.database, {
        uploaderId: uploader,
        title: `sunset ${['harbour', 'meadow', 'city'][i % 3]} number${i % 40}`,
        tags: ['common', `rare_${i % 20}`, ...(i % 2 ? ['half'] : [])],
        rating: i % 4 === 0 ? 'sketchy' : 'safe',
        mediaType: i % 5 === 0 ? 'video' : 'image',
        createdAt: START + i * HOUR,
      });
      if (i % 7 === 0) await addLike(ctx.database, fan, id, START + i * HOUR);
    }
  };
  /** Warms the engine as a server does, then asks what a user would: tags, a title word, an order by likes. */
  const searched = async (engine: SearchEngine) => {
    await engine.warm();
    for (const q of ['common rare_3', 'half -rare_4', 'harbour', 'order:likes', 'common rating:safe type:video', `user:bytes`])
      await engine.page({ query: { q, limit: 24 }, render: async (r) => ({ value: r.ids }) });
    return engine.memory();
  };

  before(async () => {
    uploader = await createUser(ctx.database, { username: 'bytes' });
    fan = await createUser(ctx.database, { username: 'bytesfan' });
    await addPosts(60);
  });

  test('every kind is reported, and the kinds that keep posts hold some once the board was searched', async () => {
    const memory = await searched(createSearchEngine(ctx.app.deps));
    assert.deepEqual(Object.keys(memory).sort(), [...KINDS].sort());
    for (const [kind, bytes] of Object.entries(memory)) assert.ok(Number.isInteger(bytes) && bytes >= 0, `${kind}: ${bytes}`);
    for (const kind of OF_POSTS) assert.ok(memory[kind] > 0, `${kind} holds bytes: ${JSON.stringify(memory)}`);
  });

  test('the engine holds more once many more posts are added, and a fresh one too', async () => {
    const engine = createSearchEngine(ctx.app.deps);
    const before = await searched(engine);
    await addPosts(400);
    const after = await searched(engine);
    assert.ok(sum(after) > sum(before), `after ${sum(after)} bytes, before ${sum(before)}`);
    assert.ok(after.newestOrder > before.newestOrder, `the newest order: ${after.newestOrder} bytes, before ${before.newestOrder}`);
    const fresh = await searched(createSearchEngine(ctx.app.deps));
    assert.ok(sum(fresh) > sum(before), `a fresh engine: ${sum(fresh)} bytes, before ${sum(before)}`);
  });
});
