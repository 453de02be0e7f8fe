import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { eachDatabase, listPage, postsService } from '../../../test/helpers.ts';
import { createPostsService } from '../../modules/posts/posts.service.ts';
import { createSearchEngine } from '../engine.ts';
import { createPost, createUser } from '../../../test/factories.ts';
import { dropTitleWordTriggers, fillTitleWords } from '../../db/schema/title-words.ts';
import { TermWords } from '../lookups/title-terms.ts';
import { WordSets } from './title-word-sets.ts';
import { counter } from '../../db/counters.ts';

const HOUR = 3_600_000;

/** What title_words must hold: each lowered title's space-separated words. */
const wordsOf = (lowered: string) => [...new Set(lowered.split(' ').filter(Boolean))];

eachDatabase('one search term through the words of titles', (ctx) => {
  let u: number;
  const start = Date.parse('2026-02-01T00:00:00Z');
  let at = 0;
  const post = (title: string, tags: string[] = []) => createPost(ctx.database, { uploaderId: u, title, tags, createdAt: start + at++ * HOUR });

  const TITLES = [
    'Été à Paris',
    'CAFÉ "quoted" back\\slash',
    'tab\there and there',
    'line\nbreak word',
    '  spaced   out  ',
    'x\u0001y ctrl char',
    'Naïve café',
    'Red fox',
    'Shredded red paper',
    'Plain',
    'Blue bird',
    'Blue sky',
  ];
  const SEARCHES = [
    'blue',
    'été',
    'ÉTÉ',
    'café',
    'CAFÉ',
    '"quoted"',
    'back\\slash',
    'here',
    'tab\there',
    'break',
    'spaced',
    'ctrl',
    'x\u0001y',
    'naïve',
    'red',
    'shred',
    'ain',
    'absent',
  ];

  before(async () => {
    u = await createUser(ctx.database, { username: 'worder' });
    for (const title of TITLES) await post(title, title === 'Plain' ? ['red'] : []);
  });

  /**
   * Title words' posts kept in memory, kept across the tests so they catch up with every
   * change: as bitmaps (a word on 1 post in 16), as id lists, and as id lists written anew after every 2 changes.
   */
  const wordSets = [new WordSets(), new WordSets({ bitmapAt: 1 }), new WordSets({ bitmapAt: 1, compactAt: 2 })];

  /** Every search, at a few pages, through services with each kind of word sets, and by SQL alone. */
  const sameAsGeneral = async (what: string, searches = SEARCHES) => {
    const general = postsService(ctx.app.deps, 'sql');
    const services = [
      postsService(ctx.app.deps),
      ...wordSets.map((w) => createPostsService(ctx.app.deps, { search: createSearchEngine(ctx.app.deps, { wordSets: w }) })),
    ];
    for (const search of searches) {
      for (const [offset, limit] of [
        [0, 3],
        [2, 3],
        [0, 50],
      ]) {
        const want = await listPage(general, { search, offset, limit });
        for (const [i, service] of services.entries()) {
          assert.deepEqual(await listPage(service, { search, offset, limit }), want, `${what}: '${search}' offset ${offset} (service ${i})`);
        }
      }
    }
  };

  /** The tables hold exactly what the posts' titles give, lowered as the engine lowers them (SQLite: ASCII letters only). */
  const consistent = async () => {
    const db = ctx.database;
    const posts =
      ctx.kind === 'sqlite'
        ? (await db.selectFrom('posts').select(['id', 'title']).execute()).map((p) => ({ id: p.id, title: p.title.replace(/[A-Z]/g, (c) => c.toLowerCase()) }))
        : (await sql<{ id: number; title: string }>`SELECT id, lower(title) AS title FROM posts`.execute(db)).rows;
    const want = posts.flatMap((p) => wordsOf(p.title).map((w) => `${w}\u0000${p.id}`)).sort();
    const have = (await sql<{ word: string; post_id: number }>`SELECT word, post_id FROM title_words`.execute(db)).rows
      .map((r) => `${r.word}\u0000${r.post_id}`)
      .sort();
    assert.deepEqual(have, want, 'title_words');
    const counts = new Map<string, number>();
    for (const key of want) counts.set(key.split('\u0000')[0], (counts.get(key.split('\u0000')[0]) ?? 0) + 1);
    const vocab = (await sql<{ word: string; posts: number }>`SELECT word, posts FROM title_vocab`.execute(db)).rows;
    assert.deepEqual(new Map(vocab.map((r) => [r.word, r.posts])), counts, 'title_vocab');
    if (ctx.kind === 'sqlite') await sql`INSERT INTO title_vocab_fts (title_vocab_fts) VALUES ('integrity-check')`.execute(db);
  };

  test('titles with quotes, backslashes, control characters, runs of spaces and non-ASCII letters: the same pages and totals as the general query', async () => {
    await sameAsGeneral('as uploaded');
    await consistent();
    // The word sets were read and keep every word of these titles.
    const ids = (await sql<{ id: number }>`SELECT id FROM title_vocab`.execute(ctx.database)).rows.map((r) => r.id);
    for (const sets of wordSets) assert.ok(ids.length > 0 && ids.every((id) => sets.has(id)));
    assert.equal(wordSets[0].hasBitmap(ids[0]), true);
    assert.equal(wordSets[1].hasBitmap(ids[0]), false);
    const cafe = await listPage(postsService(ctx.app.deps), { search: 'café' });
    assert.deepEqual(cafe.posts.map((p) => p.title).sort(), ['CAFÉ "quoted" back\\slash', 'Naïve café']);
    // "red" is a title word of two posts and the tag of a third.
    assert.equal((await listPage(postsService(ctx.app.deps), { search: 'red' })).totalPosts, 3);
  });

  test('title edits and deletes show at once, and words no title has any more leave the vocabulary', async () => {
    const db = ctx.database;
    const fox = await db.selectFrom('posts').select('id').where('title', '=', 'Red fox').executeTakeFirstOrThrow();
    await db.updateTable('posts').set({ title: 'Grey wolf wolf' }).where('id', '=', fox.id).execute();
    // 'blue' stays in another title: word sets kept from before must drop the edited post from it.
    await db.updateTable('posts').set({ title: 'Green bird' }).where('title', '=', 'Blue bird').execute();
    const paper = await db.selectFrom('posts').select('id').where('title', '=', 'Shredded red paper').executeTakeFirstOrThrow();
    await db.deleteFrom('posts').where('id', '=', paper.id).execute();
    await post('Another wolf');
    await sameAsGeneral('after edits', [...SEARCHES, 'wolf', 'grey', 'fox', 'paper', 'blue', 'green']);
    await consistent();
    assert.equal((await listPage(postsService(ctx.app.deps), { search: 'wolf' })).totalPosts, 2);
    assert.equal((await listPage(postsService(ctx.app.deps), { search: 'paper' })).totalPosts, 0);
    const left = await sql<{ word: string }>`SELECT word FROM title_vocab WHERE word IN ('fox', 'shredded', 'paper')`.execute(db);
    assert.deepEqual(left.rows, []);
  });

  test('a term inside more distinct words than the word path reads still finds every title', async () => {
    // 20 words containing "uzz": past the word path's limit, so the trigram index of every title answers.
    for (let i = 0; i < 20; i++) await post(`Buzz${String.fromCharCode(97 + i)} number ${i}`);
    await sameAsGeneral('many words', ['uzz', 'buzzc', 'number']);
    assert.equal((await listPage(postsService(ctx.app.deps), { search: 'uzz', limit: 5 })).totalPosts, 20);
  });

  test('words found for a term are kept per data version: a new title word shows in the next search', async () => {
    const memory = postsService(ctx.app.deps);
    const before = await listPage(memory, { search: 'lynx' });
    assert.equal(before.totalPosts, 0);
    await post('Lynxes at dusk');
    const after = await listPage(memory, { search: 'lynx' });
    assert.deepEqual(
      after.posts.map((p) => p.title),
      ['Lynxes at dusk'],
    );
  });

  test('TermWords reads the words of a term once per data version', async () => {
    const db = ctx.database;
    const words = new TermWords();
    const version = await counter(db, 'version');
    assert.deepEqual(await words.of(db, 'ocelot', version), []);
    // A word written behind the version's back is not seen at that version, and is at the next.
    const { id } = await db.selectFrom('posts').select('id').limit(1).executeTakeFirstOrThrow();
    await sql`INSERT INTO title_words (word, post_id) VALUES ('ocelots', ${id})`.execute(db);
    try {
      assert.deepEqual(await words.of(db, 'ocelot', version), []);
      const wordAndCount = (found: [string, number, number][]) => found.map(([word, n]) => [word, n]);
      assert.deepEqual(wordAndCount(await words.of(db, 'ocelot', version + 1)), [['ocelots', 1]]);
      assert.deepEqual(wordAndCount(await words.of(db, 'ocelot')), [['ocelots', 1]], 'no version: read every time');
    } finally {
      await sql`DELETE FROM title_words WHERE word = 'ocelots'`.execute(db);
    }
  });

  // The benchmark's dataset is loaded so on SQLite; PostgreSQL has no bulk path.
  if (ctx.kind === 'sqlite')
    test('a bulk load writes the words of the posts already there', async () => {
      const db = ctx.database;
      await dropTitleWordTriggers(db);
      for (const name of ['title_words', 'title_vocab']) await sql.raw(`DELETE FROM ${name}`).execute(db);
      await post('Written while the words were gone');
      await fillTitleWords(db);
      await consistent();
      // The words were numbered anew, unlogged (as a bulk load does before any server reads them): sets read from now on.
      wordSets.splice(0, wordSets.length, new WordSets(), new WordSets({ bitmapAt: 1 }));
      await sameAsGeneral('after the bulk load', [...SEARCHES, 'gone', 'wolf']);
    });
});
