// Accounts in the browser: signing up with an invite code when the board is invite-only, no form when it is closed,
// setting a new password from the link `imageboard user reset-password` prints, and a moderator's scoped API key.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { createAccount } from '../../src/modules/users/accounts.ts';
import { createInvite } from '../../src/modules/invites/invites.service.ts';
import { createResetLink } from '../../src/modules/auth/password-reset.ts';
import { browserSuite, newPage, screenshot, signIn, startBoard, type Board } from './harness.ts';

browserSuite('browser: invite-only sign-up, closed registration and the password reset page', { timeout: 180_000 }, () => {
  let board: Board;
  before(async () => {
    board = await startBoard({ config: { registration: 'invite' } });
  });
  after(async () => {
    await board?.close();
  });

  const login = (username: string, password: string) => board.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } });

  it('asks for the invite code, refuses a wrong one, and signs up with the right one', async () => {
    const admin = await createAccount(board.app.deps, { username: 'boss', password: 'boss password', role: 'admin' });
    const { code } = await createInvite(board.app.deps, { id: admin.id, username: 'boss', role: 'admin', tier: 'free' }, {});
    const { page, errors, context } = await newPage(board);
    await page.goto('/register');
    await page.getByLabel('Invite code').waitFor();
    await page.getByLabel('Username').fill('newbie');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByLabel('Invite code').fill(`inv_${'A'.repeat(43)}`);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('alert').filter({ hasText: 'invite code is not valid' }).waitFor();

    await page.getByLabel('Invite code').fill(code);
    await screenshot(page, 'register-invite');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.locator('summary', { hasText: 'newbie' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('sets a new password from a reset link, then the old one no longer signs in', async () => {
    await createAccount(board.app.deps, { username: 'forgetful', password: 'old password 1' });
    const { link } = await createResetLink(board.app.deps, 'forgetful');
    const { page, errors, context } = await newPage(board);
    await page.goto(link);
    await page.getByLabel('New password (at least 8 characters)').fill('new password 2');
    await page.getByLabel('New password again').fill('new password 2');
    await screenshot(page, 'reset-password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('heading', { name: 'Password set' }).waitFor();
    assert.equal((await login('forgetful', 'new password 2')).statusCode, 200);
    assert.equal((await login('forgetful', 'old password 1')).statusCode, 401);

    // The same link again: the page says why it failed.
    await page.goto(link);
    await page.getByLabel('New password (at least 8 characters)').fill('third password 3');
    await page.getByLabel('New password again').fill('third password 3');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByRole('alert').filter({ hasText: 'already been used' }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a moderator makes a key that may only read and moderate, until tomorrow, from two addresses, and sees its limits', async () => {
    await createAccount(board.app.deps, { username: 'modkeys', password: 'mod password 1', role: 'moderator', tier: 'pro' });
    const { page, errors, context } = await newPage(board);
    await signIn(page, 'modkeys', 'mod password 1');
    await page.goto('/settings');
    await page.getByTestId('tier').filter({ hasText: 'pro' }).waitFor();
    await page.getByLabel('Name of the new key').fill('mod-bot');
    for (const scope of ['posts:write', 'comments:write', 'reactions:write', 'pools:write']) await page.getByLabel(scope, { exact: true }).uncheck();
    assert.ok(await page.getByLabel('moderation', { exact: true }).isChecked(), 'staff are offered moderation, on by default');
    const tomorrow = new Date(Date.now() + 86_400_000);
    // datetime-local takes the viewer's local time.
    const local = new Date(tomorrow.getTime() - tomorrow.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel('Expires (empty: never)').fill(local);
    await page.getByLabel('Only from addresses (optional)').fill('127.0.0.1, 10.0.0.0/8');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByTestId('new-key').inputValue();
    const row = page.locator('tr', { hasText: 'mod-bot' });
    await row.filter({ hasText: 'Active' }).waitFor();
    assert.equal(await row.getByTestId('key-scopes').innerText(), 'read, moderation');
    assert.match(await row.innerText(), /expires .*only from 127\.0\.0\.1, 10\.0\.0\.0\/8/s);
    await screenshot(page, 'settings-scoped-key');

    const headers = { 'X-API-Key': secret, 'content-type': 'application/json' };
    assert.equal((await fetch(`${board.url}/api/moderation/reports`, { headers })).status, 200);
    const comment = await fetch(`${board.url}/api/comments`, { method: 'POST', headers, body: JSON.stringify({ postId: '1', content: 'no' }) });
    assert.equal(comment.status, 403);
    assert.equal((await comment.json()).error, "API key lacks scope 'comments:write'");
    await page.reload();
    // The last use and where it came from, in the "Last used" column.
    await row.locator('td').nth(2).filter({ hasText: 'from 127.0.0.1' }).waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('says registration is closed instead of showing a form that cannot work', async () => {
    board.app.deps.config.registration = 'closed';
    const { page, errors, context } = await newPage(board);
    try {
      await page.goto('/register');
      await page.getByRole('heading', { name: 'Registration is closed' }).waitFor();
      assert.equal(await page.getByLabel('Username').count(), 0);
      assert.deepEqual(errors, []);
    } finally {
      board.app.deps.config.registration = 'invite';
      await context.close();
    }
  });
});
