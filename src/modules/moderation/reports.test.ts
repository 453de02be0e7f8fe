import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { App } from '../../app.ts';
import { anotherInstance, eachDatabase, type Ctx } from '../../../test/helpers.ts';
import { assertBadField, assertError, createKeyOk, setAccount, ISO_MS } from '../../../test/auth-helpers.ts';
import { uploadTagged } from '../../../test/tag-helpers.ts';
import { auditEntries, cast, comment, report, reports, settle } from '../../../test/moderation-helpers.ts';

eachDatabase('moderation: reports', (ctx: Ctx) => {
  const who = cast(ctx);
  let post: string;
  let other: string;
  let note: string;
  let second: App;

  before(async () => {
    post = await uploadTagged(ctx, who.owner, 'reported');
    other = await uploadTagged(ctx, who.owner, 'reported_too');
    note = await comment(ctx.app, who.owner.headers, post, 'rude words');
    second = await anotherInstance(ctx);
  });
  after(() => second?.close());

  test('anonymous may not report (401); a member reports a post and a comment (201), by session or API key', async () => {
    assertError(await report(ctx.app, {}, { postId: post, reason: 'spam' }), 401);
    const res = await report(ctx.app, who.member.headers, { postId: post, reason: '  spam  ' });
    assert.equal(res.statusCode, 201, res.body);
    const r = res.json().report;
    assert.deepEqual(
      { ...r, id: undefined, createdAt: undefined },
      {
        id: undefined,
        postId: post,
        commentId: null,
        reason: 'spam',
        state: 'open',
        note: null,
        reporter: { username: 'mallory' },
        createdAt: undefined,
        settledBy: null,
        settledAt: null,
      },
    );
    assert.match(r.createdAt, ISO_MS);
    await setAccount(ctx.database, 'mallory', { tier: 'basic' });
    const { key } = await createKeyOk(ctx.app, who.member.headers);
    const byKey = await report(ctx.app, { 'x-api-key': key }, { commentId: note, reason: 'insults' });
    assert.equal(byKey.statusCode, 201, byKey.body);
    assert.deepEqual([byKey.json().report.postId, byKey.json().report.commentId], [null, note]);
  });

  test('bad input is 400 naming the field; a missing post or comment is 404; nothing is stored', async () => {
    const before = (await reports(ctx.app, who.mod.headers)).json().pagination.total;
    assertBadField(await report(ctx.app, who.owner.headers, { reason: 'no target' }), 'postId');
    assertBadField(await report(ctx.app, who.owner.headers, { postId: post, commentId: note, reason: 'both' }), 'postId');
    assertBadField(await report(ctx.app, who.owner.headers, { postId: post }), 'reason');
    assertBadField(await report(ctx.app, who.owner.headers, { postId: post, reason: '' }), 'reason');
    assertBadField(await report(ctx.app, who.owner.headers, { postId: post, reason: '   ' }), 'reason');
    assertBadField(await report(ctx.app, who.owner.headers, { postId: post, reason: 'x'.repeat(1001) }), 'reason');
    assertBadField(await report(ctx.app, who.owner.headers, { postId: post, reason: 'ok', severity: 9 }), 'severity');
    assertError(await report(ctx.app, who.owner.headers, { postId: '999999', reason: 'gone' }), 404);
    assertError(await report(ctx.app, who.owner.headers, { postId: 'abc', reason: 'gone' }), 404);
    assertError(await report(ctx.app, who.owner.headers, { commentId: '999999', reason: 'gone' }), 404);
    assert.equal((await reports(ctx.app, who.mod.headers)).json().pagination.total, before);
  });

  test('one open report per user and target: a second is 409 naming the first; others may report it too', async () => {
    const first = await report(ctx.app, who.owner.headers, { postId: other, reason: 'duplicate of another post' });
    assert.equal(first.statusCode, 201);
    const again = await report(ctx.app, who.owner.headers, { postId: other, reason: 'still a duplicate' });
    assertError(again, 409);
    assert.equal(again.json().reportId, first.json().report.id);
    assert.equal((await report(ctx.app, who.mod.headers, { postId: other, reason: 'agreed' })).statusCode, 201, 'another user');
    assert.equal((await report(ctx.app, who.owner.headers, { commentId: note, reason: 'a comment is another target' })).statusCode, 201);
    // Once settled, the same user may report the same thing again.
    assert.equal((await settle(ctx.app, who.mod.headers, first.json().report.id, { state: 'dismissed' })).statusCode, 200);
    assert.equal((await report(ctx.app, who.owner.headers, { postId: other, reason: 'it is back' })).statusCode, 201);
  });

  test('two identical reports at once, through two instances: one is made, the other is 409', async () => {
    const target = await uploadTagged(ctx, who.owner, 'raced');
    const both = await Promise.all([
      report(ctx.app, who.member.headers, { postId: target, reason: 'race one' }),
      report(second, who.member.headers, { postId: target, reason: 'race two' }),
    ]);
    assert.deepEqual(both.map((r) => r.statusCode).sort(), [201, 409], both.map((r) => r.body).join('\n'));
    const open = (await reports(ctx.app, who.mod.headers, '?limit=200')).json().reports.filter((r: { postId: string }) => r.postId === target);
    assert.equal(open.length, 1);
  });

  test('only moderators and admins list reports (401, 403 otherwise), by state, newest first, paged', async () => {
    assertError(await reports(ctx.app, {}), 401);
    assertError(await reports(ctx.app, who.member.headers), 403);
    assertError(await reports(ctx.app, who.owner.headers), 403);
    const open = await reports(ctx.app, who.admin.headers);
    assert.equal(open.statusCode, 200, open.body);
    const list = open.json().reports as { id: string; state: string }[];
    assert.ok(list.length >= 4);
    assert.ok(list.every((r) => r.state === 'open'));
    const ids = list.map((r) => Number(r.id));
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => b - a),
      'newest first',
    );
    const dismissed = (await reports(ctx.app, who.mod.headers, '?state=dismissed')).json();
    assert.deepEqual(
      dismissed.reports.map((r: { state: string }) => r.state),
      ['dismissed'],
    );
    const page2 = (await reports(ctx.app, who.mod.headers, '?limit=2&page=2')).json();
    assert.deepEqual(
      page2.reports.map((r: { id: string }) => r.id),
      list.slice(2, 4).map((r) => r.id),
    );
    assert.deepEqual(page2.pagination, { total: list.length, page: 2, perPage: 2, totalPages: Math.ceil(list.length / 2) });
    assertBadField(await reports(ctx.app, who.mod.headers, '?state=closed'), 'state');
    assertBadField(await reports(ctx.app, who.mod.headers, '?limit=500'), 'limit');
  });

  test('a moderator resolves a report once, with a note, recorded in the audit log; members cannot', async () => {
    const made = (await report(ctx.app, who.admin.headers, { commentId: note, reason: 'harassment' })).json().report;
    assertError(await settle(ctx.app, {}, made.id, { state: 'resolved' }), 401);
    assertError(await settle(ctx.app, who.member.headers, made.id, { state: 'resolved' }), 403);
    assertError(await settle(ctx.app, who.owner.headers, made.id, { state: 'dismissed' }), 403);
    assertBadField(await settle(ctx.app, who.mod.headers, made.id, { state: 'open' }), 'state');
    assertBadField(await settle(ctx.app, who.mod.headers, made.id, { state: 'resolved', note: 'n'.repeat(1001) }), 'note');
    assertError(await settle(ctx.app, who.mod.headers, '999999', { state: 'resolved' }), 404);

    ctx.clock.advance(5000);
    const res = await settle(ctx.app, who.mod.headers, made.id, { state: 'resolved', note: 'comment removed' });
    assert.equal(res.statusCode, 200, res.body);
    const r = res.json().report;
    assert.deepEqual(
      [r.state, r.note, r.settledBy, r.settledAt],
      ['resolved', 'comment removed', { username: 'mod' }, new Date(ctx.clock.now()).toISOString()],
    );
    const again = await settle(ctx.app, who.admin.headers, made.id, { state: 'dismissed' });
    assertError(again, 409);
    assert.match(again.json().error, /already resolved/);
    const resolved = (await reports(ctx.app, who.mod.headers, '?state=resolved')).json().reports;
    assert.ok(resolved.some((x: { id: string }) => x.id === made.id));
    assert.ok(!(await reports(ctx.app, who.mod.headers, '?limit=200')).json().reports.some((x: { id: string }) => x.id === made.id), 'no longer open');

    const [entry] = await auditEntries(ctx.app, who.mod.headers, `?target=report:${made.id}`);
    assert.deepEqual(
      { ...entry, id: undefined, createdAt: undefined },
      {
        id: undefined,
        createdAt: undefined,
        actor: { username: 'mod' },
        action: 'report.resolve',
        target: `report:${made.id}`,
        details: { commentId: note, reason: 'harassment', reporter: 'root', note: 'comment removed' },
      },
    );
  });

  test('a report outlives the post a moderator deleted because of it', async () => {
    const doomed = await uploadTagged(ctx, who.owner, 'doomed');
    const made = (await report(ctx.app, who.member.headers, { postId: doomed, reason: 'illegal' })).json().report;
    assert.equal((await ctx.app.inject({ method: 'DELETE', url: `/api/posts/${doomed}`, headers: who.mod.headers })).statusCode, 200);
    const listed = (await reports(ctx.app, who.mod.headers, '?limit=200')).json().reports.find((r: { id: string }) => r.id === made.id);
    assert.equal(listed?.postId, doomed);
    assert.equal((await settle(ctx.app, who.mod.headers, made.id, { state: 'resolved', note: 'deleted' })).statusCode, 200);
  });
});
