import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { eachDatabase } from '../../../test/helpers.ts';
import { createPost, createUser, postRow } from '../../../test/factories.ts';
import { plainTags } from '../tags/tag-name-rules.ts';
import { replacePostTags, tagsForWrite } from './post-tags.ts';
import { insertPost, insertPostTagged } from './posts.repo.ts';

/** Whether `p` is still pending after `ms`. */
const stillWaiting = (p: Promise<unknown>, ms: number) => Promise.race([p.then(() => false), sleep(ms).then(() => true)]);

eachDatabase('writes that readers follow stay in commit order', (ctx) => {
  let uploader = 0;
  before(async () => {
    uploader = await createUser(ctx.database, { username: 'order_uploader' });
  });

  test("an upload's transaction ends with its post and its tags' counts: on PostgreSQL one statement, nothing after it", async () => {
    const seen: string[] = [];
    const spy = ctx.database.withPlugin({
      transformQuery: (args) => {
        seen.push(ctx.database.getExecutor().compileQuery(args.node, args.queryId).sql);
        return args.node;
      },
      transformResult: async (args) => args.result,
    });
    const tags = Array.from({ length: 8 }, (_, i) => `order_tag_${i}`);
    const id = await insertPost(spy, postRow({ uploaderId: uploader, createdAt: ctx.clock.now() }), plainTags(tags));
    // A sub-select is compiled on its own too, before the statement that holds it: left out.
    const shape = (q: string) => q.replace(/\$\d+/g, '$');
    const statements = seen.filter((q, i) => !seen.slice(i + 1).some((later) => shape(later) !== shape(q) && shape(later).includes(shape(q))));
    const post = statements.findIndex((q) => /^(with .*)?insert into "posts"/is.test(q));
    // What holds what every upload writes (the commit-order lock, popular tags' rows) until the commit: on PostgreSQL, nothing.
    assert.deepEqual(
      statements.slice(post + 1).map((q) => q.split(' ').slice(0, 2).join(' ')),
      ctx.kind === 'sqlite' ? ['insert into', 'update "tags"'] : [],
    );
    const counts = await ctx.database.selectFrom('tags').select(['name', 'post_count']).where('name', 'in', tags).orderBy('name').execute();
    assert.deepEqual(
      counts.map((t) => [t.name, t.post_count]),
      tags.map((t) => [t, 1]),
    );
    const links = await ctx.database.selectFrom('post_tags').select('tag_id').where('post_id', '=', id).execute();
    assert.equal(links.length, 8);
  });

  test("an edit's tag counts, moved up and down in one statement, stay exact", async () => {
    const a = await createPost(ctx.database, { uploaderId: uploader, createdAt: ctx.clock.now(), tags: ['order_up', 'order_down'] });
    await createPost(ctx.database, { uploaderId: uploader, createdAt: ctx.clock.now(), tags: ['order_down'] });
    await ctx.database.transaction().execute(async (trx) => {
      await replacePostTags(trx, a, ctx.clock.now(), await tagsForWrite(trx, plainTags(['order_up', 'order_new']), ctx.clock.now()));
    });
    const counts = await ctx.database
      .selectFrom('tags')
      .select(['name', 'post_count'])
      .where('name', 'in', ['order_up', 'order_down', 'order_new'])
      .orderBy('name')
      .execute();
    assert.deepEqual(
      counts.map((t) => [t.name, t.post_count]),
      [
        ['order_down', 1],
        ['order_new', 1],
        ['order_up', 1],
      ],
    );
  });

  if (ctx.kind !== 'postgres') return;

  test('PostgreSQL: a post that drew its id first is visible whenever a later one is (readers read "ids above the highest seen")', async () => {
    // Widens the moment between an insert drawing the post's id and its statement's end, where the
    // counters row used to be taken: another upload drew the next id, committed, and a reader
    // that saw it would never meet the first post.
    await sql`CREATE FUNCTION order_test_slow() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.title = 'order slow' THEN PERFORM pg_sleep(0.5); END IF; RETURN NEW; END $$`.execute(ctx.database);
    await sql`CREATE TRIGGER order_test_slow BEFORE INSERT ON posts FOR EACH ROW EXECUTE FUNCTION order_test_slow()`.execute(ctx.database);
    try {
      const slow = insertPost(ctx.database, postRow({ uploaderId: uploader, title: 'order slow', createdAt: ctx.clock.now() }), plainTags(['order_a']));
      await sleep(150);
      const fast = await insertPost(ctx.database, postRow({ uploaderId: uploader, title: 'order fast', createdAt: ctx.clock.now() }), plainTags(['order_b']));
      const visible = await ctx.database.selectFrom('posts').select(['id', 'title']).where('title', 'in', ['order slow', 'order fast']).orderBy('id').execute();
      const first = await slow;
      assert.deepEqual(visible, [
        { id: first, title: 'order slow' },
        { id: fast, title: 'order fast' },
      ]);
    } finally {
      await sql`DROP TRIGGER order_test_slow ON posts`.execute(ctx.database);
      await sql`DROP FUNCTION order_test_slow()`.execute(ctx.database);
    }
  });

  test('PostgreSQL: an edit that logs after another started waits for it to commit, so its entry numbers after the earlier one', async () => {
    const [p1, p2] = [
      await createPost(ctx.database, { uploaderId: uploader, createdAt: ctx.clock.now(), title: 'order one' }),
      await createPost(ctx.database, { uploaderId: uploader, createdAt: ctx.clock.now(), title: 'order two' }),
    ];
    const newest = async () => Number((await sql<{ s: number | null }>`SELECT max(seq) AS s FROM tag_changes`.execute(ctx.database)).rows[0].s ?? 0);
    const since = await newest();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let edited!: () => void;
    const firstEdited = new Promise<void>((resolve) => (edited = resolve));
    const first = ctx.database.transaction().execute(async (trx) => {
      await trx.updateTable('posts').set({ title: 'order one, edited' }).where('id', '=', p1).execute();
      edited();
      await gate;
    });
    await firstEdited;
    const second = ctx.database.updateTable('posts').set({ title: 'order two, edited' }).where('id', '=', p2).execute();
    const waited = await stillWaiting(second, 300);
    // What a reader sees meanwhile: neither entry (the first is not committed, the second waits).
    const meanwhile = await newest();
    release();
    await first;
    await second;
    const logged = await ctx.database.selectFrom('tag_changes').select(['seq', 'post_id']).where('seq', '>', since).orderBy('seq').execute();
    assert.equal(waited, true, 'the second edit waits for the first to commit');
    assert.equal(meanwhile, since);
    assert.deepEqual(
      logged.map((r) => r.post_id),
      [p1, p2],
    );
  });

  test("PostgreSQL: an upload whose process is slow to hear its last statement's answer holds up no other upload", async () => {
    // The answer of an upload's last statement (its post, links and tags' counts) is kept from
    // the client for 1.5 s, as a busy event loop would: the commit went with the statement, so
    // the locks every upload takes are free meanwhile and another upload of the same tags ends first.
    let held = false;
    const lastStatements = new Set<unknown>();
    const slowToHear = ctx.database.withPlugin({
      transformQuery: (args) => {
        if (/insert into "posts"/i.test(ctx.database.getExecutor().compileQuery(args.node, args.queryId).sql)) lastStatements.add(args.queryId);
        return args.node;
      },
      transformResult: async (args) => {
        if (!held && lastStatements.has(args.queryId)) {
          held = true;
          await sleep(1500);
        }
        return args.result;
      },
    });
    const tags = plainTags(['order_busy_a', 'order_busy_b']);
    const slow = insertPost(slowToHear, postRow({ uploaderId: uploader, createdAt: ctx.clock.now(), title: 'order slow to hear' }), tags);
    while (!held) await sleep(10);
    const other = insertPost(ctx.database, postRow({ uploaderId: uploader, createdAt: ctx.clock.now() }), tags);
    const slowStillWaiting = await Promise.race([other.then(() => stillWaiting(slow, 0)), sleep(1400).then(() => false)]);
    assert.equal(slowStillWaiting, true, 'the other upload ended while the slow one was still hearing its answer');
    const [a, b] = [await slow, await other];
    assert.ok(a < b);
    const counts = await ctx.database.selectFrom('tags').select('post_count').where('name', 'in', ['order_busy_a', 'order_busy_b']).execute();
    assert.deepEqual(
      counts.map((c) => c.post_count),
      [2, 2],
    );
    // The connection that carried the commit serves the next transaction as usual.
    const third = await insertPost(slowToHear, postRow({ uploaderId: uploader, createdAt: ctx.clock.now() }), tags);
    assert.ok(third > b);
  });

  test('PostgreSQL: an upload waits only for the commit order, not for another upload that is still resolving its tags', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let resolved!: () => void;
    const tagsResolved = new Promise<void>((resolve) => (resolved = resolve));
    // A tag both use that exists already (a new one's name is held by the transaction creating it until it commits).
    await ctx.database.insertInto('tags').values({ name: 'order_shared', post_count: 0, created_at: ctx.clock.now(), category: 'general' }).execute();
    const held = ctx.database.transaction().execute(async (trx) => {
      const tags = await tagsForWrite(trx, plainTags(['order_shared', 'order_held']), ctx.clock.now());
      resolved();
      await gate;
      return insertPostTagged(trx, postRow({ uploaderId: uploader, createdAt: ctx.clock.now() }), tags);
    });
    await tagsResolved;
    const other = insertPost(ctx.database, postRow({ uploaderId: uploader, createdAt: ctx.clock.now() }), plainTags(['order_shared']));
    const waited = await stillWaiting(other, 300);
    release();
    const [a, b] = [await held, await other];
    assert.equal(waited, false);
    assert.ok(a > b, 'the held upload drew its id when it wrote its post, after the other committed');
    const shared = await ctx.database.selectFrom('tags').select('post_count').where('name', '=', 'order_shared').executeTakeFirstOrThrow();
    assert.equal(shared.post_count, 2);
  });
});
