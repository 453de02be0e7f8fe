import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, statementsDuring } from '../../../test/helpers.ts';
import { createUser } from '../../../test/factories.ts';
import { UserIds } from './user-ids.ts';

eachDatabase('user ids kept for searches by user: and fav:', (ctx) => {
  const ids: number[] = [];
  before(async () => {
    for (const name of ['ann', 'bob']) ids.push(await createUser(ctx.database, { username: name }));
  });

  test('user ids by name: any case, read once; a name with no user is asked again, and found once someone takes it', async () => {
    const userIds = new UserIds();
    assert.equal(await userIds.of(ctx.database, 'BOB'), ids[1]);
    const db = ctx.database;
    assert.equal(await statementsDuring(db, async () => assert.equal(await userIds.of(db, 'bob'), ids[1])), 0, 'a name already found is not read again');
    assert.equal(await statementsDuring(db, async () => assert.equal(await userIds.of(db, 'eve'), undefined)), 1);
    const eve = await createUser(ctx.database, { username: 'Eve' });
    assert.equal(await userIds.of(ctx.database, 'eve'), eve);
  });
});
