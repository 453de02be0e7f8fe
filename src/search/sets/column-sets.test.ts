// The ratings' and kinds' sets count their keys with a scan of every post (seconds at ten million):
// a build reads those counts once, not once for the most used keys and again for the least used.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createPost, createUser } from '../../../test/factories.ts';
import { capturingQueries, eachDatabase, freshDatabase } from '../../../test/helpers.ts';
import { KindSets, RatingSets, UploaderSets } from './column-sets.ts';

eachDatabase('the column sets count their keys once a build', (ctx) => {
  test('ratings and kinds: one count of every post each', async () => {
    const user = await createUser(ctx.database, { username: 'rater' });
    for (const [i, rating] of (['safe', 'sketchy', 'unsafe', 'safe'] as const).entries())
      await createPost(ctx.database, { uploaderId: user, rating, mediaType: i === 1 ? 'video' : 'image', createdAt: Date.UTC(2026, 0, 1 + i) });
    for (const sets of [new RatingSets(), new KindSets()]) {
      const { spy, seen } = capturingQueries(ctx.database);
      await sets.current(spy);
      const counts = seen.filter((q) => /group by/i.test(q.sql) && /count\(\*\)/i.test(q.sql));
      assert.equal(counts.length, 1, `${sets.constructor.name}: ${counts.map((q) => q.sql).join('\n')}`);
    }
  });
});

test('SQLite: the kinds are counted and read from the kind index (migration 024), not by scanning the posts table', async () => {
  const { database, cleanup } = await freshDatabase('sqlite');
  try {
    const user = await createUser(database, { username: 'kinds' });
    for (const mediaType of ['image', 'video', 'image'] as const) await createPost(database, { uploaderId: user, mediaType, createdAt: Date.UTC(2026, 0, 1) });
    const { spy, seen, plan } = capturingQueries(database);
    await new KindSets().current(spy);
    const reads = seen.filter((q) => /media_type/.test(q.sql) && !/ IN \(|id > /.test(q.sql));
    assert.ok(reads.length >= 2, `the counts and a kind's posts: ${reads.length} statements`);
    // A prepared statement is captured with its placeholders (db/prepared.ts): any key explains the same.
    for (const q of reads)
      assert.match(
        await plan({ ...q, parameters: q.parameters.map((v) => (typeof v === 'object' && v !== null ? 0 : v)) }),
        /COVERING INDEX posts_kind/,
        q.sql,
      );
  } finally {
    await cleanup();
  }
});

test('the uploaders budget grows with the board: every post uploader fits at ten million posts', () => {
  const sets = new UploaderSets();
  // An id list costs 4 bytes a post, and each post is in exactly one uploader set.
  assert.ok(sets.budgetAt(10_000_000 - 1) >= 4 * 10_000_000, `budget at 10M: ${sets.budgetAt(10_000_000 - 1)} bytes`);
  assert.equal(sets.budgetAt(1_000), 3 * 1024 * 1024, 'a small board keeps the fixed 3 MB floor');
});
