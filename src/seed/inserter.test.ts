import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase } from '../../test/helpers.ts';
import { Inserter } from './inserter.ts';

eachDatabase('seed inserter', (ctx) => {
  test('rows of one shape go in as written, in full batches and a last short one; rows that leave a column out get its default', async () => {
    const db = ctx.database;
    const tags = new Inserter(db, 'tags');
    // 4 columns a row: 8,000 rows a statement, so 8,005 rows are one full batch and one of 5.
    for (let i = 0; i < 8_005; i++) if (tags.add({ name: `ins_${i}`, post_count: i % 7, created_at: 1_000 + i })) await tags.flush();
    await tags.flush();
    assert.equal(tags.written, 8_005);
    const rows = await db.selectFrom('tags').select(['name', 'post_count', 'created_at']).where('name', 'like', 'ins%').orderBy('created_at').execute();
    assert.equal(rows.length, 8_005);
    assert.deepEqual(rows[8_004], { name: 'ins_8004', post_count: 8_004 % 7, created_at: 9_004 });
    assert.deepEqual(rows[0], { name: 'ins_0', post_count: 0, created_at: 1_000 });

    // Rows of different shapes (one leaves the id to the database, one sets it): Kysely writes those.
    const mixed = new Inserter(db, 'tags');
    mixed.add({ name: 'ins_auto', post_count: 1, created_at: 1 });
    mixed.add({ id: 990_001, name: 'ins_given', post_count: 2, created_at: 2 });
    await mixed.flush();
    const given = await db.selectFrom('tags').select(['id', 'name']).where('name', 'in', ['ins_auto', 'ins_given']).orderBy('name').execute();
    assert.equal(given.length, 2);
    assert.equal(given[1].id, 990_001);
    assert.ok(given[0].id > 0);
  });
});
