// The staff area in Chromium: a member reports a post and a comment, a moderator settles them in
// the queue; a moderator bans a member, whose next write shows the ban, then lifts it; the audit
// log lists those actions and filters them; an admin makes an invite link a visitor signs up with,
// then sets the new member's tier.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createAccount } from '../../src/modules/users/accounts.ts';
import { addComment, createPost } from '../factories.ts';
import { browserSuite, newPage, screenshot, signInAs, startBoard, type Board } from './harness.ts';

const PASSWORD = 'correct horse battery';

browserSuite('browser: moderation area, reports, bans, audit log, invites', { timeout: 240_000 }, () => {
  let board: Board;
  let member: Page;
  let mod: Page;
  let postId: number;
  let commentId: number;
  const errors: string[][] = [];

  const signedIn = (username: string) => signInAs(board, username, PASSWORD, errors);

  before(async () => {
    board = await startBoard({ config: { registration: 'invite' } });
    const deps = board.app.deps;
    const boss = await createAccount(deps, { username: 'boss', password: PASSWORD, role: 'admin' });
    await createAccount(deps, { username: 'mod', password: PASSWORD, role: 'moderator' });
    await createAccount(deps, { username: 'mia', password: PASSWORD });
    postId = await createPost(deps.db, { uploaderId: boss.id, title: 'Harbour at night', tags: ['harbour'], createdAt: Date.now() - 60_000 });
    commentId = await addComment(deps.db, { postId, userId: boss.id, content: 'buy cheap watches', createdAt: Date.now() - 30_000 });
    member = await signedIn('mia');
    mod = await signedIn('mod');
  });
  after(async () => {
    for (const e of errors) assert.deepEqual(e, []);
    await board?.close();
  });

  it('a member reports a post and a comment; the moderator settles both and the open queue empties', async () => {
    await mod.goto('/');
    await mod.getByRole('link', { name: 'Moderation' }).click();
    await mod.getByText('No open reports.').waitFor();
    assert.equal(await member.getByRole('link', { name: 'Moderation' }).count(), 0, 'members see no moderation link');
    await member.goto('/moderation');
    await member.getByRole('heading', { name: 'Moderators only' }).waitFor();

    await member.goto(`/posts/${postId}`);
    await member.locator('.post-title').waitFor();
    await member.locator('.actions').getByRole('button', { name: 'Report' }).click();
    await member.getByLabel('Why report this post?').fill('Stolen photo');
    await member.getByRole('button', { name: 'Send report' }).click();
    await member.getByRole('status').filter({ hasText: 'the moderators will look at this post' }).waitFor();
    // Reporting it again while the first is open: the 409, said plainly.
    await member.reload();
    await member.locator('.actions').getByRole('button', { name: 'Report' }).click();
    await member.getByLabel('Why report this post?').fill('Still stolen');
    await member.getByRole('button', { name: 'Send report' }).click();
    await member.getByRole('status').filter({ hasText: 'You have already reported this post' }).waitFor();
    const comment = member.locator(`[data-comment-id="${commentId}"]`);
    await comment.getByRole('button', { name: 'Report' }).click();
    await comment.getByLabel('Why report this comment?').fill('Spam');
    await comment.getByRole('button', { name: 'Send report' }).click();
    await comment.getByRole('status').filter({ hasText: 'this comment' }).waitFor();

    // Back on the queue (another tab and back, no reload): the new reports are there.
    await mod.getByRole('link', { name: 'Audit log' }).click();
    await mod.getByRole('link', { name: 'Reports' }).click();
    const rows = mod.locator('tr[data-report-id]');
    await rows.filter({ hasText: 'Stolen photo' }).waitFor();
    assert.equal(await rows.count(), 2);
    await screenshot(mod, 'moderation-reports');
    const postRow = rows.filter({ hasText: 'Stolen photo' });
    assert.equal(await postRow.getByRole('link', { name: `Post ${postId}` }).getAttribute('href'), `/posts/${postId}`);
    await postRow.getByPlaceholder('Note (optional)').fill('Taken down');
    await postRow.getByRole('button', { name: 'Resolve' }).click();
    await postRow.waitFor({ state: 'detached' });
    await rows
      .filter({ hasText: `Comment ${commentId}` })
      .getByRole('button', { name: 'Dismiss' })
      .click();
    await mod.getByText('No open reports.').waitFor();

    await mod.getByLabel('Show').selectOption('resolved');
    await rows.filter({ hasText: 'resolved by mod' }).filter({ hasText: 'Taken down' }).waitFor();
  });

  it('a moderator bans a member, whose next write shows the reason and the end; lifting it lets them write again', async () => {
    await mod.getByRole('link', { name: 'Users' }).click();
    await mod.getByLabel('Username').fill('mia');
    await mod.getByRole('button', { name: 'Find user' }).click();
    await mod.getByLabel('Reason (shown to the user)').fill('Spamming the comments');
    await mod.getByLabel('Ends (empty: permanent)').fill('2031-01-02T03:04');
    await mod.getByRole('button', { name: 'Ban mia' }).click();
    await mod.getByTestId('ban-state').filter({ hasText: 'Spamming the comments' }).waitFor();
    assert.match(await mod.getByTestId('ban-state').innerText(), /Banned until .*2031.* by mod/);

    await member.goto(`/posts/${postId}`);
    await member.getByLabel('Your comment').fill('hello again');
    await member.getByRole('button', { name: 'Comment', exact: true }).click();
    const notice = member.getByTestId('ban-notice');
    await notice.waitFor();
    assert.match(await notice.innerText(), /banned until .*2031.*Reason: Spamming the comments/s);
    await screenshot(member, 'ban-notice');

    await mod.getByRole('button', { name: 'Lift ban' }).click();
    await mod.getByRole('button', { name: 'Ban mia' }).waitFor();
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await member.getByRole('button', { name: 'Comment', exact: true }).click();
    await member.locator('.comment-body', { hasText: 'hello again' }).waitFor();
    assert.equal(await notice.count(), 0);
  });

  it('the audit log lists those actions, newest first, and filters by action', async () => {
    await mod.getByRole('link', { name: 'Audit log' }).click();
    const rows = mod.locator('tr[data-action]');
    await rows.first().waitFor();
    assert.deepEqual(await rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-action'))), [
      'user.unban',
      'user.ban',
      'report.dismiss',
      'report.resolve',
    ]);
    assert.match(await rows.first().innerText(), /mod\s+Ban lifted\s+user:mia/);
    await screenshot(mod, 'moderation-audit');
    await mod.getByLabel('Action').selectOption('user.ban');
    await mod.getByRole('button', { name: 'Filter' }).click();
    await mod.waitForURL(/action=user\.ban/);
    await rows.filter({ hasText: 'Spamming the comments' }).waitFor();
    assert.equal(await rows.count(), 1);
  });

  it("an admin makes an invite link, a visitor signs up with it, the list shows it used; the admin sets the new member's tier", async () => {
    assert.equal(await mod.getByRole('link', { name: 'Invites' }).count(), 0, 'moderators have no invites tab');
    const admin = await signedIn('boss');
    await admin.getByRole('link', { name: 'Moderation' }).click();
    await admin.getByRole('link', { name: 'Invites' }).click();
    await admin.getByLabel('Whom it is for (optional)').fill('for vic');
    await admin.getByRole('button', { name: 'Make invite code' }).click();
    const link = await admin.getByLabel('Sign-up link').inputValue();
    assert.match(link, new RegExp(`^${board.url}/register\\?invite=inv_[\\w-]{43}$`));
    const row = admin.locator('tr[data-invite-id]', { hasText: 'for vic' });
    assert.equal(await row.locator('.status').innerText(), 'unused');
    await screenshot(admin, 'moderation-invites');

    const { page: visitor, errors: e } = await newPage(board);
    errors.push(e);
    await visitor.goto(link);
    await visitor.getByLabel('Username').fill('vic');
    await visitor.getByLabel('Password').fill(PASSWORD);
    await visitor.getByRole('button', { name: 'Sign up' }).click();
    await visitor.locator('summary', { hasText: 'vic' }).waitFor();

    await admin.reload();
    await row.locator('.status', { hasText: 'used' }).waitFor();
    assert.equal(await row.getByRole('link', { name: 'vic' }).count(), 1);

    // Admins also set the role and the tier of the account found on the Users tab.
    await admin.getByRole('link', { name: 'Users' }).click();
    await admin.getByLabel('Username').fill('vic');
    await admin.getByRole('button', { name: 'Find user' }).click();
    await admin.getByLabel('Tier', { exact: true }).selectOption('basic');
    await admin.getByRole('button', { name: 'Save' }).click();
    await admin.getByRole('status').filter({ hasText: 'vic is now a user on the basic tier' }).waitFor();
    const me = await visitor.evaluate(() => fetch('/api/auth/me').then((r) => r.json()));
    assert.equal(me.user.tier, 'basic');
  });

  it('the Users tab lists the members, newest first or by name, with role, tier and ban; a name opens its forms', async () => {
    await mod.goto('/moderation?tab=users');
    const rows = mod.locator('tr[data-username]');
    const names = () => rows.evaluateAll((rs) => rs.map((r) => r.getAttribute('data-username')));
    await rows.first().waitFor();
    assert.equal((await names())[0], 'vic', 'the newest account first');
    assert.deepEqual([...(await names())].sort(), ['boss', 'mia', 'mod', 'vic']);
    assert.match(await rows.filter({ hasText: 'vic' }).innerText(), /vic\s+user\s+basic\s/);
    assert.match(await rows.filter({ hasText: 'boss' }).innerText(), /boss\s+admin\s/);
    await screenshot(mod, 'moderation-users');

    await mod.getByLabel('Sort').selectOption({ label: 'By name' });
    await mod.waitForURL(/sort=name/);
    await mod.waitForFunction(() => document.querySelector('tr[data-username]')?.getAttribute('data-username') === 'boss');
    assert.deepEqual(await names(), ['boss', 'mia', 'mod', 'vic']);
    await mod.getByLabel('Role').selectOption('moderator');
    await mod.waitForFunction(() => document.querySelectorAll('tr[data-username]').length === 1);
    assert.deepEqual(await names(), ['mod']);
    await mod.getByLabel('Role').selectOption('');
    await rows.nth(3).waitFor();

    // A name opens the ban form; the list then shows the ban.
    await rows.filter({ hasText: 'vic' }).getByRole('link', { name: 'vic' }).click();
    await mod.getByLabel('Reason (shown to the user)').fill('Rude');
    await mod.getByRole('button', { name: 'Ban vic' }).click();
    await mod.getByTestId('ban-state').waitFor();
    await mod.getByRole('link', { name: 'All members' }).click();
    await rows.filter({ hasText: 'vic' }).filter({ hasText: 'Banned for good' }).waitFor();
    assert.doesNotMatch(await rows.filter({ hasText: 'mia' }).innerText(), /Banned/);

    // A name that is nobody's: the names that contain it.
    await mod.getByLabel('Username').fill('mi');
    await mod.getByRole('button', { name: 'Find user' }).click();
    await mod.getByText('No user is called “mi”.').waitFor();
    await mod.getByRole('heading', { name: 'Members whose name contains “mi”' }).waitFor();
    await mod.waitForFunction(() => document.querySelectorAll('tr[data-username]').length === 1);
    assert.deepEqual(await names(), ['mia']);
  });
});
