import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, statementsDuring } from '../../../test/helpers.ts';
import { createPost } from '../../../test/factories.ts';
import { register } from '../../../test/auth-helpers.ts';
import { followedUpTo, newestEvent } from './events.repo.ts';
import { followRound } from './rounds.ts';

eachDatabase(
  'following the events',
  (ctx) => {
    let seen: number[] = [];
    const round = (after: number | null) =>
      followRound(
        ctx.database,
        'webhooks',
        after,
        async (batch) => batch.map((e) => e.seq),
        async (_trx, rows) => {
          seen = rows;
        },
      );

    before(async () => {
      const alice = await register(ctx.app, 'alice');
      for (let i = 0; i < 5; i++) await createPost(ctx.database, { uploaderId: Number(alice.id), tags: ['x'], createdAt: ctx.clock.now() });
    });

    test('with nobody to follow for, a round reads and writes nothing', async () => {
      const from = await followedUpTo(ctx.database, 'webhooks');
      // The app's own rounds run on a timer: counted on a view of the database only this call uses.
      const view = ctx.database.withPlugin({ transformQuery: (a) => a.node, transformResult: async (a) => a.result });
      const statements = await statementsDuring(view, () =>
        followRound(
          view,
          'webhooks',
          null,
          async () => [],
          async () => {},
        ),
      );
      assert.equal(statements, 0);
      assert.equal(await followedUpTo(ctx.database, 'webhooks'), from);
    });

    test('events from before the oldest follower are skipped, the rest matched once', async () => {
      const newest = await newestEvent(ctx.database);
      assert.ok(newest >= 5);
      const from = await followedUpTo(ctx.database, 'webhooks');
      // A follower made after the third newest event: the older ones are never handed to match.
      const after = newest - 2;
      assert.equal(await round(after), 2);
      assert.deepEqual(seen, [newest - 1, newest]);
      assert.ok(from < after);
      assert.equal(await followedUpTo(ctx.database, 'webhooks'), newest);
      // Nothing new: nothing matched, the counter stays.
      seen = [];
      assert.equal(await round(after), 0);
      assert.deepEqual(seen, []);
    });
  },
  {},
  // The app's own rounds stay off: the counter is this suite's alone.
  { jobs: { run: false } },
);
