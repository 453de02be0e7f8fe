import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase } from '../../../test/helpers.ts';
import { createPost, createUser } from '../../../test/factories.ts';
import { fromTagString, toTagString } from './tag-string.ts';

// '_' sorts before letters by code unit; a linguistic collation would put 'tag_b' after 'taga'.
const NAMES = ['taga', 'tag_b', 'tag', 'a9', 'a_'];
const SORTED = ['a9', 'a_', 'tag', 'tag_b', 'taga'];

test('a tag string holds the names in code-unit order and reads back to the same list', () => {
  assert.equal(toTagString(NAMES), SORTED.join(' '));
  assert.deepEqual(fromTagString(toTagString(NAMES)), SORTED);
  assert.deepEqual(fromTagString(''), []);
});

eachDatabase('posts.tag_string', (ctx) => {
  test('a post keeps its tag names in code-unit order and shows them so', async () => {
    const db = ctx.database;
    const u = await createUser(db, { username: 'filler' });
    const tagged = await createPost(db, { uploaderId: u, tags: NAMES, createdAt: ctx.clock.now() });
    const bare = await createPost(db, { uploaderId: u, tags: [], createdAt: ctx.clock.now() });
    const rows = await db.selectFrom('posts').select(['id', 'tag_string']).where('id', 'in', [tagged, bare]).orderBy('id').execute();
    assert.deepEqual(
      rows.map((r) => r.tag_string),
      [SORTED.join(' '), ''],
    );
    const item = (await ctx.app.inject({ url: `/api/posts/${tagged}` })).json();
    assert.deepEqual(item.tags, SORTED);
  });
});
