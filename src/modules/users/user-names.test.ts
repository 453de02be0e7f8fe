import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase } from '../../../test/helpers.ts';
import { createUser } from '../../../test/factories.ts';
import { UserNames } from './user-names.ts';

eachDatabase('usernames kept in memory', (ctx) => {
  const ids: number[] = [];
  before(async () => {
    for (const name of ['ann', 'bob', 'cy', 'dee']) ids.push(await createUser(ctx.database, { username: name }));
  });

  test('the names of the users asked for, repeats and ids of no user aside', async () => {
    const names = new UserNames();
    const found = await names.of(ctx.database, [ids[1], ids[0], ids[1], 999_999]);
    assert.deepEqual(
      [...found].sort((a, b) => a[0] - b[0]),
      [
        [ids[0], 'ann'],
        [ids[1], 'bob'],
      ],
    );
    // Asked again, with one more: the same names, and the new one.
    const again = await names.of(ctx.database, [ids[0], ids[2]]);
    assert.deepEqual(
      [...again].sort((a, b) => a[0] - b[0]),
      [
        [ids[0], 'ann'],
        [ids[2], 'cy'],
      ],
    );
  });

  test('past the number kept, the memory starts over and every name asked is still given', async () => {
    const names = new UserNames(2);
    await names.of(ctx.database, [ids[0], ids[1]]);
    // ann and bob are known, cy and dee are not: making room for them must not lose ann and bob's answer.
    const found = await names.of(ctx.database, ids);
    assert.deepEqual(
      ids.map((id) => found.get(id)),
      ['ann', 'bob', 'cy', 'dee'],
    );
    const after = await names.of(ctx.database, [ids[0], ids[3]]);
    assert.deepEqual([after.get(ids[0]), after.get(ids[3])], ['ann', 'dee']);
  });
});
