import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { capturingQueries, eachDatabase, listPage } from '../../../test/helpers.ts';
import { addTagsToPosts } from '../../modules/posts/post-tags.ts';
import { WordSets } from './title-word-sets.ts';
import { RatingSets } from './column-sets.ts';
import { createPostsService } from '../../modules/posts/posts.service.ts';
import { createSearchEngine } from '../engine.ts';
import { createPost, createUser, postRow } from '../../../test/factories.ts';
import { insertPending, publishPending } from '../../modules/approval/approval.repo.ts';
import type { Viewer } from '../../core/deps.ts';
import { deletePost, editPost } from '../../modules/posts/posts.edit.ts';
import { TagSets, type TagSetOptions } from './tag-sets.ts';
import { TAG_CHANGES_KEPT } from '../../db/schema/tag-changes.ts';

const HOUR = 3_600_000;
const POSTS = 300;
/** Tags of fixture post i: 'a' every 2nd, 'b' every 3rd, 'c' every 5th, 'd' every 7th (so 'a' and 'b' are the two most used). */
const tagsOf = (i: number) => [i % 2 === 0 && 'a', i % 3 === 0 && 'b', i % 5 === 0 && 'c', i % 7 === 0 && 'd'].filter((t): t is string => !!t);

eachDatabase('several tags from the tag sets kept in memory', (ctx) => {
  /** The fixture as it should be now: title -> tags, in id order. */
  const model = new Map<string, string[]>();
  const ids = new Map<string, number>();
  let mod: Viewer;
  /**
   * How tags are kept: 'mixed': 'a' and 'b' (on 1 post in 2 and 3) as bitmaps, 'c' as an id list,
   * and the budget spent before 'd', which is read from its links; 'lists': all four as id lists;
   * 'ends': the most used ('a') and the least used ('d') as id lists, 'b' and 'c' read from their links.
   */
  let kinds: Record<Kind, TagSetOptions>;
  type Kind = 'mixed' | 'lists' | 'ends';
  /** A posts service of its own, with its tag sets kept in one of these ways. */
  const memory = (kind: Kind, compactAt?: number, decodedFrom = 1) => {
    // Every list searched stays decoded (at a million posts only the big ones): changes must reach those too.
    const tagSets = new TagSets({ ...kinds[kind], compactAt, decodedFrom });
    return { service: createPostsService(ctx.app.deps, { search: createSearchEngine(ctx.app.deps, { tagSets }) }), tagSets };
  };
  const KINDS = ['mixed', 'lists', 'ends'] as const;

  before(async () => {
    const db = ctx.database;
    const uploader = await createUser(db, { username: 'bits' });
    mod = { id: await createUser(db, { username: 'bitmod', role: 'moderator' }), username: 'bitmod', role: 'moderator', tier: 'free' };
    const start = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < POSTS; i++) {
      const title = `p${i}`;
      ids.set(title, await createPost(db, { uploaderId: uploader, title, tags: tagsOf(i), createdAt: start + i * HOUR }));
      model.set(title, tagsOf(i));
    }
    const maxId = Math.max(...ids.values());
    const bitmap = 4 * Math.ceil((maxId + 1 + 8_192) / 32);
    // 'b' (100 posts) is on 1 post in `bitmapAt`, 'c' (60) is not; 'c' costs ~70 bytes as a list (a byte
    // a post and 8 for its tag), and 'd' (43) would take the budget past its end.
    // 'ends': 'a' (150 posts, ~160 bytes) fills the most used share (156 of 260 bytes), 'b' would not
    // fit in it; then 'd' (~52 bytes) fits in the rest and 'c' (~68) does not.
    kinds = {
      mixed: { bitmapAt: Math.ceil((maxId + 1) / 100), budget: 2 * bitmap + 100, mostUsedShare: 1 },
      lists: { bitmapAt: 1 },
      ends: { bitmapAt: 1, budget: 260, mostUsedShare: 0.6 },
    };
  });

  const expected = (tags: string[], sort: 'newest' | 'oldest') => {
    const titles = [...model].filter(([, t]) => tags.every((x) => t.includes(x))).map(([title]) => title);
    return sort === 'newest' ? titles.reverse() : titles;
  };

  async function check(m: ReturnType<typeof memory>, tags: string[], sort: 'newest' | 'oldest', offset: number, limit: number) {
    const page = await listPage(m.service, { tag: tags, sortBy: sort, offset, limit });
    const all = expected(tags, sort);
    const label = `${tags.join('+')} ${sort} @${offset}`;
    assert.deepEqual(
      page.posts.map((p) => p.title),
      all.slice(offset, offset + limit),
      label,
    );
    if (!page.totalIsEstimate) assert.equal(page.totalPosts, all.length, label);
    else assert.ok(Math.abs(page.totalPosts - all.length) <= all.length * 0.5, `${label}: estimate ${page.totalPosts} for ${all.length}`);
    return page;
  }

  test('the budget grows with the board: bytes a post keep the tags a fixed budget leaves to the database', async () => {
    const tagId = async (name: string) => (await ctx.database.selectFrom('tags').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
    const fixed = new TagSets(kinds.ends);
    const grown = new TagSets({ ...kinds.ends, budgetPerPost: 64 });
    await fixed.current(ctx.database);
    await grown.current(ctx.database);
    const b = await tagId('b');
    const c = await tagId('c');
    assert.deepEqual([fixed.has(b), fixed.has(c)], [false, false], 'within 260 bytes, b and c are read from their links');
    assert.deepEqual([grown.has(b), grown.has(c)], [true, true], 'at 64 bytes a post every tag is kept');
  });

  test('one, two and three tags, newest and oldest first, at every offset: the posts that have them all, with the total', async () => {
    for (const kind of KINDS) {
      for (const tags of [['a'], ['c'], ['d'], ['a', 'b'], ['b', 'a', 'c'], ['a', 'c'], ['c', 'd'], ['b', 'd'], ['d', 'c', 'b']]) {
        for (const sort of ['newest', 'oldest'] as const) {
          for (const [offset, limit] of [
            [0, 24],
            [0, 5],
            [7, 10],
            [40, 24],
            [49, 5],
            [60, 24],
          ])
            await check(memory(kind), tags, sort, offset, limit);
        }
      }
      // Every tag kept: the total is counted from the sets, exact.
      for (const [tags, total] of [
        [['a', 'b'], 50],
        [['a', 'c'], 30],
        [['b', 'c', 'a'], 10],
      ] as const) {
        const page = await check(memory(kind), [...tags], 'newest', 0, 24);
        assert.deepEqual([page.totalPosts, page.totalIsEstimate], [total, false], `${kind}: ${tags.join('+')}`);
      }
    }
    // The kinds are as described: in 'mixed', 'd' is read from its links; in 'ends', 'b' and 'c'.
    const tagId = async (name: string) => (await ctx.database.selectFrom('tags').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
    const kept = async (kind: Kind) => {
      const m = memory(kind);
      await check(m, ['a', 'd'], 'newest', 0, 5);
      return Promise.all(['a', 'b', 'c', 'd'].map(async (t) => [m.tagSets.has(await tagId(t)), m.tagSets.hasBitmap(await tagId(t))]));
    };
    assert.deepEqual(await kept('mixed'), [
      [true, true],
      [true, true],
      [true, false],
      [false, false],
    ]);
    assert.deepEqual(await kept('ends'), [
      [true, false],
      [false, false],
      [false, false],
      [true, false],
    ]);
  });

  test('edits, deletes and uploads after the sets were read show at once, before and after the lists are written anew', async () => {
    // Each kind of set, and id lists that take in the changes kept beside them after every 2.
    // The last keeps no list decoded: its unions read the compressed lists straight into bitmaps.
    const sets = [memory('mixed'), memory('lists'), memory('lists', 2), memory('lists', undefined, 1_000)];
    const checkAll = async (tags: string[], sort: 'newest' | 'oldest', offset: number, limit: number) => {
      for (const m of sets) await check(m, tags, sort, offset, limit);
    };
    await checkAll(['a', 'b'], 'newest', 0, 24);
    await checkAll(['a', 'c'], 'newest', 0, 24);
    // p294 has a and b (and d): take 'a' away, give p295 (b, c) an 'a'.
    for (const [title, tags] of [
      ['p294', ['b', 'd']],
      ['p295', ['a', 'b', 'c']],
      ['p290', ['a', 'c']],
    ] as const) {
      await editPost(ctx.app.deps, mod, String(ids.get(title)), { tags: [...tags] });
      model.set(title, [...tags]);
    }
    await deletePost(ctx.app.deps, mod, String(ids.get('p288')));
    model.delete('p288');
    const fresh = await createPost(ctx.database, {
      uploaderId: mod.id,
      title: 'p300',
      tags: ['a', 'b', 'c'],
      createdAt: Date.parse('2026-02-01T00:00:00Z'),
    });
    model.set('p300', ['a', 'b', 'c']);
    ids.set('p300', fresh);
    for (const tags of [['a'], ['c'], ['a', 'b'], ['a', 'c'], ['b', 'a', 'c'], ['c', 'd']]) {
      await checkAll(tags, 'newest', 0, 24);
      await checkAll(tags, 'oldest', 0, 60);
    }
    // A second process that read its sets before the changes catches up just the same.
    const other = memory('lists');
    await check(other, ['a', 'b'], 'newest', 0, 10);
    await editPost(ctx.app.deps, mod, String(ids.get('p300')), { tags: ['c'] });
    model.set('p300', ['c']);
    await check(other, ['a', 'b'], 'newest', 0, 10);
    await checkAll(['a', 'b'], 'newest', 0, 10);
    await checkAll(['c', 'a'], 'oldest', 0, 40);
    // The search reads each tag's posts whole (postsOf): stale posts left out, the ones kept beside the list merged in.
    const tagIds = await ctx.database.selectFrom('tags').select(['id', 'name']).where('name', 'in', ['a', 'b', 'c', 'd']).execute();
    for (const m of [...sets, other]) {
      const kept = await m.tagSets.current(ctx.database);
      for (const t of tagIds) {
        if (!kept.has(t.id)) continue;
        const posts = kept.postsOf(t.id);
        const got = 'ids' in posts ? [...posts.ids] : [...ids.values()].filter((id) => (posts.bits[id >>> 5] & (1 << (id & 31))) !== 0).sort((x, y) => y - x);
        const want = expected([t.name], 'newest').map((title) => ids.get(title));
        assert.deepEqual(got, want, t.name);
        // Marked into a bitmap (a union of many tags), the same posts.
        const bits = new Int32Array(kept.bitmapWords);
        kept.markInto(t.id, bits);
        assert.deepEqual(
          [...ids.values()].filter((id) => (bits[id >>> 5] & (1 << (id & 31))) !== 0).sort((x, y) => y - x),
          want,
          `${t.name} marked`,
        );
        // Read from the top as a walk reads them, one at a time, the same posts.
        const walk = kept.descendingOf(t.id);
        const walked: number[] = [];
        for (let id = walk.next(); id >= 0; id = walk.next()) walked.push(id);
        assert.deepEqual(walked, want, `${t.name} walked`);
      }
    }
    // A union of tags as one bitmap: 'a or c' and 'b or d' through the query language. Asked
    // again at the same data version, the page is walked from the top of the union's lists, read
    // together one id at a time (a post in both is one post), or of the other part of an AND.
    const queries: Record<string, (t: string[]) => boolean> = {
      'a or c': (t) => t.includes('a') || t.includes('c'),
      'b or d': (t) => t.includes('b') || t.includes('d'),
      '(a or c) -b': (t) => (t.includes('a') || t.includes('c')) && !t.includes('b'),
      '(a or c) d': (t) => (t.includes('a') || t.includes('c')) && t.includes('d'),
    };
    for (const m of [...sets, other])
      for (const [q, matches] of Object.entries(queries)) {
        const want = [...model]
          .filter(([, t]) => matches(t))
          .map(([title]) => title)
          .reverse();
        for (const [ask, offset] of [
          [1, 0],
          [2, 0],
          [3, 7],
        ]) {
          const page = await listPage(m.service, { q, limit: 20, offset });
          assert.deepEqual(
            page.posts.map((p) => p.title),
            want.slice(offset, offset + 20),
            `${q}, ask ${ask}`,
          );
          assert.equal(page.totalPosts, want.length, q);
        }
      }
  });

  test('tags added alone (an implication backfill) reach every process as the log says: no post is read again, no title or rating set is touched', async () => {
    const db = ctx.database;
    const sets = [memory('mixed'), memory('lists'), memory('ends')];
    for (const m of sets) await check(m, ['c', 'd'], 'newest', 0, 10);
    const others = [new WordSets(), new RatingSets()];
    for (const o of others) await o.current(db);
    // 'c' to every post with 'd' (some have it already), and a tag of its own, 'e', as a backfill gives them.
    const tagId = async (name: string) => (await db.selectFrom('tags').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
    const c = await tagId('c');
    const e = (await db.insertInto('tags').values({ name: 'e', post_count: 0, created_at: 0 }).returning('id').executeTakeFirstOrThrow()).id;
    const titles = expected(['d'], 'newest');
    await db.transaction().execute((trx) =>
      addTagsToPosts(
        trx,
        db,
        titles.map((t) => ids.get(t)!),
        new Map([
          ['c', c],
          ['e', e],
        ]),
        Date.parse('2026-03-01T00:00:00Z'),
      ),
    );
    for (const t of titles) model.set(t, [...new Set([...model.get(t)!, 'c', 'e'])]);
    // A statement given a list of post ids (listParam: JSON text on SQLite, an array on PostgreSQL) reads changed posts' keys again.
    const readsPosts = (seen: { parameters: readonly unknown[] }[]) =>
      seen.filter((q) => q.parameters.some((p) => Array.isArray(p) || (typeof p === 'string' && p.startsWith('[')))).length;
    const { spy, seen } = capturingQueries(db);
    for (const m of sets) await m.tagSets.current(spy);
    for (const o of others) await o.current(spy);
    assert.equal(readsPosts(seen), 0, 'no post read again');
    for (const m of sets) for (const tags of [['c'], ['e'], ['c', 'd'], ['e', 'a'], ['d', 'e', 'c']]) await check(m, tags, 'newest', 0, 24);
    // An edit that takes a tag away is read again (the check above can see such reads).
    const title = titles[0];
    await editPost(ctx.app.deps, mod, String(ids.get(title)), { tags: ['d'] });
    model.set(title, ['d']);
    for (const m of sets) await m.tagSets.current(spy);
    assert.ok(readsPosts(seen) > 0, 'an edited post is read again');
    for (const m of sets) for (const tags of [['c'], ['e'], ['d']]) await check(m, tags, 'newest', 0, 24);
  });

  // Before the next test: it leaves PostgreSQL's log numbering behind the rows it wrote.
  test('a post published from the approval queue, with an id below the newest, reaches every kind of set kept, in its place by date', async () => {
    const db = ctx.database;
    const sets = [memory('mixed'), memory('lists'), memory('ends'), memory('lists', 2)];
    const day = (d: number) => Date.parse(`2026-02-0${d}T00:00:00Z`);
    const held = await insertPending(db, postRow({ uploaderId: mod.id, title: 'p_held', createdAt: day(2) }), { tags: ['a', 'b', 'c'], categories: new Map() });
    const after = await createPost(db, { uploaderId: mod.id, title: 'p_after', tags: ['a', 'b'], createdAt: day(3) });
    assert.ok(held < after);
    model.set('p_after', ['a', 'b']);
    ids.set('p_after', after);
    for (const m of sets) for (const tags of [['a', 'b'], ['c']]) await check(m, tags, 'newest', 0, 10);
    const entry = { action: 'post.approve' as const, target: `post:${held}`, details: {} };
    assert.equal(await publishPending(db, held, day(4), { by: mod, at: day(4), entry }), true);
    // The model in date order: the published post comes before the one uploaded after it.
    model.delete('p_after');
    model.set('p_held', ['a', 'b', 'c']);
    model.set('p_after', ['a', 'b']);
    ids.set('p_held', held);
    for (const m of [...sets, memory('lists')])
      for (const tags of [['a'], ['c'], ['a', 'b'], ['a', 'c'], ['b', 'a', 'c']]) {
        await check(m, tags, 'newest', 0, 10);
        await check(m, tags, 'oldest', Math.max(0, expected(tags, 'oldest').length - 5), 5);
      }
  });

  test('a process further behind than the change log reads every tag again', async () => {
    const db = ctx.database;
    const m = memory('lists');
    await check(m, ['a', 'b'], 'newest', 0, 10);
    // A change the log no longer holds: 'a' leaves the newest post with a and b behind the log's
    // back, and the log's newest entry is TAG_CHANGES_KEPT past anything the process has read.
    const title = expected(['a', 'b'], 'newest')[0];
    const tagA = (await db.selectFrom('tags').select('id').where('name', '=', 'a').executeTakeFirstOrThrow()).id;
    await db.deleteFrom('post_tags').where('post_id', '=', ids.get(title)!).where('tag_id', '=', tagA).execute();
    await db
      .updateTable('tags')
      .set((eb) => ({ post_count: eb('post_count', '-', 1) }))
      .where('id', '=', tagA)
      .execute();
    await db
      .updateTable('counters')
      .set((eb) => ({ value: eb('value', '+', 1) }))
      .where('name', '=', 'version')
      .execute();
    const seq = Number((await sql<{ s: number | null }>`SELECT max(seq) AS s FROM tag_changes`.execute(db)).rows[0].s ?? 0) + TAG_CHANGES_KEPT + 5;
    await (ctx.kind === 'sqlite'
      ? sql`INSERT INTO tag_changes (seq, post_id) VALUES (${seq}, ${ids.get('p0')!})`
      : sql`INSERT INTO tag_changes (seq, post_id) OVERRIDING SYSTEM VALUE VALUES (${seq}, ${ids.get('p0')!})`
    ).execute(db);
    model.set(
      title,
      model.get(title)!.filter((t) => t !== 'a'),
    );
    await check(m, ['a', 'b'], 'newest', 0, 10);
  });
});
