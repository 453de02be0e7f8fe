import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, listPage, postsService, statementsDuring } from '../../../test/helpers.ts';
import { createPost, createUser } from '../../../test/factories.ts';
import { counter } from '../../db/counters.ts';
import { TagNames } from './tag-names.ts';
import { VersionedMap } from '../../core/versioned-map.ts';

test('a versioned map drops what it kept when a newer version is seen, and keeps nothing read at an older one', () => {
  const m = new VersionedMap<number>(2);
  m.get('a', 5);
  m.set('a', 1, 5);
  assert.equal(m.get('a', 5), 1);
  assert.equal(m.get('a', 4), undefined, 'an older reader gets nothing');
  m.set('b', 2, 4);
  assert.equal(m.get('b', 5), undefined, 'nor keeps anything');
  assert.equal(m.get('a', 6), undefined, 'a newer version drops it');
  m.set('a', 1, 6);
  m.set('b', 2, 6);
  m.get('a', 6);
  m.set('c', 3, 6);
  assert.deepEqual([m.get('a', 6), m.get('b', 6), m.get('c', 6)], [1, undefined, 3], 'the least recently used goes first');
});

eachDatabase('tag names kept per data version', (ctx) => {
  test('a lookup at a known version reads nothing; a new version reads again', async () => {
    const db = ctx.database;
    const u = await createUser(db, { username: 'namer' });
    await createPost(db, { uploaderId: u, title: 'One', tags: ['heron'], createdAt: Date.parse('2026-03-01T00:00:00Z') });
    const names = new TagNames();
    const version = await counter(db, 'version');
    const at = (v: number) => () => Promise.resolve(v);
    assert.deepEqual([...(await names.lookup(db, ['heron', 'egret'], at(version))).keys()], ['heron']);
    // Changed behind the version's back: not seen at that version, seen at the next.
    await db.updateTable('tags').set({ post_count: 99 }).where('name', '=', 'heron').execute();
    assert.equal((await names.lookup(db, ['heron'], at(version))).get('heron')?.count, 1);
    assert.equal((await names.lookup(db, ['heron'], at(version + 1))).get('heron')?.count, 99);
    await db.updateTable('tags').set({ post_count: 1 }).where('name', '=', 'heron').execute();
  });

  test('lookups made together at one version read their names together: as many statements as one lookup of them all', async () => {
    const db = ctx.database;
    const u = await createUser(db, { username: 'flock' });
    const names = Array.from({ length: 20 }, (_, i) => `wader_${i}`);
    for (const name of names.slice(0, 10)) await createPost(db, { uploaderId: u, tags: [name], createdAt: Date.parse('2026-03-01T00:00:00Z') });
    const version = await counter(db, 'version');
    const at = () => Promise.resolve(version);
    // Counted on a view of the database only these calls use (the app's own timers use the database too).
    const view = db.withPlugin({ transformQuery: (a) => a.node, transformResult: async (a) => a.result });
    const once = await statementsDuring(view, () => new TagNames().lookup(view, names, at));
    const together = new TagNames();
    let found: Map<string, unknown>[] = [];
    const apart = await statementsDuring(view, async () => {
      found = await Promise.all(names.map((name) => together.lookup(view, [name], at)));
    });
    assert.equal(apart, once);
    assert.deepEqual(
      found.map((m) => m.size),
      names.map((_, i) => (i < 10 ? 1 : 0)),
    );
  });

  test('a tag first used after a list looked for it is found by the next list', async () => {
    const db = ctx.database;
    const u = await createUser(db, { username: 'later' });
    const memory = postsService(ctx.app.deps);
    assert.equal((await listPage(memory, { tag: ['bittern'] })).totalPosts, 0);
    assert.equal((await listPage(memory, { search: 'bittern' })).totalPosts, 0);
    await createPost(db, { uploaderId: u, title: 'Marsh', tags: ['bittern'], createdAt: Date.parse('2026-03-02T00:00:00Z') });
    assert.equal((await listPage(memory, { tag: ['bittern'] })).totalPosts, 1);
    assert.deepEqual(
      (await listPage(memory, { search: 'bittern', limit: 5 })).posts.map((p) => p.title),
      ['Marsh'],
    );
  });

  test('a list that takes the version it saw last as current works the page out again when the data moved meanwhile', async () => {
    const db = ctx.database;
    const u = await createUser(db, { username: 'assumer' });
    const memory = postsService(ctx.app.deps);
    await createPost(db, { uploaderId: u, title: 'Ibis one', tags: ['ibis', 'reed'], createdAt: Date.parse('2026-03-03T00:00:00Z') });
    assert.equal((await listPage(memory, { tag: ['ibis'] })).totalPosts, 1);
    assert.equal((await listPage(memory, { tag: ['ibis', 'reed'] })).totalPosts, 1);
    // Another instance writes: this process learns of it only from the statement of the items.
    await createPost(db, { uploaderId: u, title: 'Ibis two', tags: ['ibis', 'reed'], createdAt: Date.parse('2026-03-04T00:00:00Z') });
    for (const tag of [['ibis'], ['ibis', 'reed']]) {
      const page = await listPage(memory, { tag });
      assert.deepEqual([page.totalPosts, page.posts.map((p) => p.title)], [2, ['Ibis two', 'Ibis one']], tag.join('+'));
    }
  });
});
