import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../app.ts';
import { anotherInstance, eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { jobDone } from '../../../test/jobs.ts';
import { addAlias, imply, listed, patchTag, postTags, tagObject, uploadTagged, userAndModerator } from '../../../test/tag-helpers.ts';

/**
 * Two instances of the board on one database: curation done through one is in force on the
 * other at once, though the other had read (and cached) the tags, their posts and a search before.
 */
eachDatabase({ title: 'tag relations across two instances', fleet: 'curation on one instance is in force on the others at once' }, (ctx) => {
  const who = userAndModerator(ctx);
  let second: App;
  let other: Ctx;
  before(async () => {
    second = await anotherInstance(ctx);
    other = { ...ctx, app: second };
  });
  after(() => second?.close());

  test('aliases, implications, categories and renames made on one are applied by the other on writes, searches and tag pages', async () => {
    const kitten = await uploadTagged(other, who.alice, 'fleet_kitten');
    const cat = await uploadTagged(other, who.alice, 'fleet_cat, fleet_sky');
    // The second instance reads them first, so its in-memory sets and name lookups hold the old state.
    assert.deepEqual(await listed(other, 'q=fleet_cat'), { ids: [cat], total: 1 });
    assert.deepEqual(await listed(other, 'q=fleet_kitten'), { ids: [kitten], total: 1 });
    assert.equal((await tagObject(other, 'fleet_cat')).category, 'general');

    assert.equal((await addAlias(ctx, who.mod.headers, 'fleet_kitten', 'fleet_cat')).statusCode, 201);
    const implied = await imply(ctx, who.mod.headers, 'fleet_cat', 'fleet_animal');
    assert.equal(implied.statusCode, 202, implied.body);
    await jobDone(ctx.app, implied.json().job.id, who.mod.headers);
    assert.equal((await patchTag(ctx, who.mod.headers, 'fleet_cat', { category: 'character' })).statusCode, 200);

    for (const q of ['q=fleet_cat', 'q=fleet_kitten', 'tag=fleet_kitten', 'q=fleet_animal']) {
      assert.deepEqual(await listed(other, q), { ids: [cat, kitten], total: 2 }, q);
    }
    const fresh = await uploadTagged(other, who.alice, 'fleet_kitten');
    assert.deepEqual((await postTags(other, fresh)).tagDetails, [
      { name: 'fleet_animal', category: 'general', postsCount: 3 },
      { name: 'fleet_cat', category: 'character', postsCount: 3 },
    ]);
    const edit = await second.inject({ method: 'PATCH', url: `/api/posts/${fresh}`, headers: who.alice.headers, payload: { tags: ['fleet_cat'] } });
    assert.equal(edit.statusCode, 400, 'removing an implied tag is refused on the other instance too');
    assert.match(edit.json().error, /fleet_animal is implied by fleet_cat/);

    assert.equal((await patchTag(ctx, who.mod.headers, 'fleet_cat', { name: 'fleet_felis' })).statusCode, 200);
    assert.deepEqual((await postTags(other, cat)).tags, ['fleet_animal', 'fleet_felis', 'fleet_sky']);
    assert.deepEqual(await listed(other, 'q=fleet_kitten'), { ids: [fresh, cat, kitten], total: 3 }, 'an alias of the old name follows the rename');
    const tag = await tagObject(other, 'fleet_cat');
    assert.deepEqual([tag.name, tag.aliases, tag.implies], ['fleet_felis', ['fleet_cat', 'fleet_kitten'], ['fleet_animal']]);
    const history = await getJson(second, '/api/tags/fleet_felis/history');
    assert.deepEqual(
      history.body.history.map((e: { kind: string; action: string }) => `${e.kind} ${e.action}`),
      ['tag update', 'alias create', 'tag update', 'implication create', 'alias create'],
    );
    const listedTags = await getJson(second, '/api/tags?category=character&search=fleet');
    assert.deepEqual(
      listedTags.body.tags.map((t: { name: string }) => t.name),
      ['fleet_felis'],
    );
  });
});
