import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { eachDatabase } from '../../../test/helpers.ts';
import { postRow } from '../../../test/factories.ts';
import { jobDone } from '../../../test/jobs.ts';
import { imply, postTags, userAndModerator } from '../../../test/tag-helpers.ts';
import { tagsForWrite } from '../posts/post-tags.ts';
import { insertPostTagged } from '../posts/posts.repo.ts';
import { plainTags } from './tag-name-rules.ts';

eachDatabase('an implication made while a post is being written', (ctx) => {
  const who = userAndModerator(ctx);

  for (const tag of ['existing', 'new'] as const) {
    test(`the write has read the implications but not yet made its post: the implication waits for it, then backfills it (a tag ${tag === 'new' ? 'the write creates' : 'that exists'})`, async () => {
      const [from, to] = [`race_${tag}_lion`, `race_${tag}_cat`];
      if (tag === 'existing')
        await ctx.database.insertInto('tags').values({ name: from, post_count: 0, created_at: ctx.clock.now(), category: 'general' }).execute();
      let readTags!: () => void;
      const tagsRead = new Promise<void>((resolve) => (readTags = resolve));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      // An upload's transaction, held open between reading what its tags imply and writing its post.
      const write = ctx.database.transaction().execute(async (trx) => {
        const tags = await tagsForWrite(trx, plainTags([from]), ctx.clock.now());
        readTags();
        await gate;
        return insertPostTagged(trx, postRow({ uploaderId: Number(who.alice.id), createdAt: ctx.clock.now() }), tags);
      });
      await tagsRead;
      const implication = imply(ctx, who.mod.headers, from, to);
      const early = await Promise.race([implication.then(() => 'answered'), sleep(300).then(() => 'waiting')]);
      release();
      const post = await write;
      const res = await implication;
      assert.equal(early, 'waiting', 'the implication waits for the write that read the implications before it');
      assert.equal(res.statusCode, 202, res.body);
      await jobDone(ctx.app, res.json().job.id, who.mod.headers);
      assert.deepEqual((await postTags(ctx, String(post))).tags, [to, from]);
    });
  }
});
