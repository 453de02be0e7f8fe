// A new member's first visit, end to end in Chromium: sign up, upload two images with tags by
// drag and drop, find one by tag search, open it, like it, comment and reply, make an API key
// (after the free tier's cap message), see it listed, revoke it, sign out.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { png, textFile } from '../media-fixtures.ts';
import { browserSuite, dropFiles, newPage, screenshot, startBoard, type Board } from './harness.ts';

browserSuite('browser: a member’s journey', { timeout: 240_000 }, () => {
  let board: Board;
  let page: Page;
  let errors: string[];
  let red: Buffer;
  before(async () => {
    board = await startBoard();
    ({ page, errors } = await newPage(board));
    red = await png(11, 480, 320);
  });
  after(async () => {
    await board?.close();
  });

  it('signs up from the header', async () => {
    await page.goto('/');
    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill('correct horse battery');
    await screenshot(page, 'register');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.locator('summary', { hasText: 'alice' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/');
  });

  it('uploads two images at once by drag and drop, with tags, a progress bar each', async () => {
    // The empty board links to Upload too ("No posts yet"): the header's link, as a member goes.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Upload', exact: true }).click();
    await page.getByRole('heading', { name: 'Upload' }).waitFor();
    await dropFiles(page, '[data-testid=dropzone]', [
      { name: 'red-harbour.png', mimeType: 'image/png', buffer: red },
      { name: 'blue-harbour.png', mimeType: 'image/png', buffer: await png(12, 300, 450) },
    ]);
    await page.waitForFunction(() => document.querySelectorAll('.upload-row').length === 2);
    await page.getByLabel('Title for red-harbour.png').fill('Red harbour at dusk');
    await page.getByLabel(/Tags for these files/).fill('harbour_test, boats');
    await page.getByRole('button', { name: 'Upload 2 files' }).click();
    const done = page.locator('.upload-row.is-done');
    await page.waitForFunction(() => document.querySelectorAll('.upload-row.is-done').length === 2);
    assert.equal(await done.count(), 2);
    for (const bar of await page.locator('.upload-row progress').all()) assert.equal(await bar.evaluate((p: HTMLProgressElement) => p.value), 1);
    assert.ok(await page.getByRole('link', { name: 'View “Red harbour at dusk”' }).isVisible());
    await screenshot(page, 'upload');
  });

  it('names the duplicate and the unreadable file, each next to its file', async () => {
    await page.getByRole('button', { name: 'Clear finished' }).click();
    // Tags complete from the board's own tags.
    const tags = page.getByRole('combobox', { name: /Tags for these files/ });
    await tags.fill('');
    await tags.pressSequentially('harb');
    await page.getByRole('option', { name: /harbour_test\s*2/ }).click();
    assert.equal(await tags.inputValue(), 'harbour_test, ');
    await dropFiles(page, '[data-testid=dropzone]', [
      { name: 'again.png', mimeType: 'image/png', buffer: red },
      { name: 'notes.png', mimeType: 'image/png', buffer: textFile() },
    ]);
    await page.getByRole('button', { name: 'Upload 2 files' }).click();
    await page.waitForFunction(() => document.querySelectorAll('.upload-row.is-failed').length === 2);
    const dup = page.locator('.upload-row[data-file="again.png"]');
    assert.match(await dup.innerText(), /already on the board/);
    const existing = await dup.getByRole('link', { name: 'see the existing post' }).getAttribute('href');
    assert.match(existing ?? '', /^\/posts\/\w+$/);
    const bad = page.locator('.upload-row[data-file="notes.png"]');
    assert.match(await bad.locator('[data-testid=upload-error]').innerText(), /Not a supported file: Unsupported file type/);
    await screenshot(page, 'upload-errors');
  });

  it('finds the red image by tag search with autocomplete', async () => {
    // Tag the red one apart from the blue one, through the post editor.
    await page.goto('/?q=title:Red');
    await page.locator('.tile a').first().click();
    await page.getByRole('button', { name: 'Edit post' }).click();
    await page.getByLabel('Description').fill('Boats coming home, shot from the pier.');
    await page.getByLabel('Tags (comma-separated)').fill('harbour_test, boats, crimson_sails');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('[data-testid=post-tags]', { hasText: 'crimson_sails' }).waitFor();

    await page.goto('/');
    const search = page.getByRole('combobox', { name: 'Search posts' });
    await search.pressSequentially('crims');
    const option = page.getByRole('option', { name: /crimson_sails/ });
    await option.waitFor();
    await search.press('ArrowDown');
    await search.press('Enter');
    assert.equal(await search.inputValue(), 'crimson_sails ');
    await search.press('Enter');
    await page.waitForURL(/\?q=crimson_sails/);
    await page.getByTestId('total').filter({ hasText: '1 post' }).waitFor();
    assert.equal(await page.locator('.tile').count(), 1);
  });

  it('opens it: image, title, uploader, tags with counts', async () => {
    await page.locator('.tile a').first().click();
    await page.getByRole('heading', { name: 'Red harbour at dusk' }).waitFor();
    const img = page.locator('.media img');
    assert.match((await img.getAttribute('alt')) ?? '', /Red harbour at dusk/);
    assert.equal(await page.locator('.uploader-name').innerText(), 'alice');
    assert.equal(await page.locator('.uploader .avatar').getAttribute('alt'), "alice's avatar");
    assert.equal(await page.locator('.description').innerText(), 'Boats coming home, shot from the pier.');
    await page.locator('.post-side time').first().waitFor();
    const tags = page.getByTestId('post-tags');
    await tags.locator('li', { hasText: 'harbour_test' }).filter({ hasText: '2' }).waitFor();
    assert.equal(await tags.getByRole('link', { name: 'crimson_sails', exact: true }).getAttribute('href'), '/?tag=crimson_sails');
    assert.equal(await tags.getByRole('link', { name: 'About crimson_sails' }).getAttribute('href'), '/tags/crimson_sails');
  });

  it('likes and favorites it, with live counts', async () => {
    const like = page.getByTestId('like');
    await like.click();
    await page.waitForFunction(() => document.querySelector('[data-testid=like]')?.getAttribute('aria-pressed') === 'true');
    assert.match(await like.innerText(), /Liked\s*1/);
    await page.getByTestId('favorite').click();
    await page.waitForFunction(() => document.querySelector('[data-testid=favorite]')?.getAttribute('aria-pressed') === 'true');
    assert.match(await page.getByTestId('favorite').innerText(), /Favorited\s*1/);
    await page.reload();
    await page.waitForFunction(() => document.querySelector('[data-testid=like]')?.getAttribute('aria-pressed') === 'true');
  });

  it('comments, replies in a thread, and deletes the reply', async () => {
    await page.getByLabel('Your comment').fill('Lovely colours on the water.');
    await page.getByRole('button', { name: 'Comment', exact: true }).click();
    const first = page.locator('.comment', { hasText: 'Lovely colours' }).first();
    await first.waitFor();
    await first.getByRole('button', { name: 'Reply' }).click();
    await page.getByLabel('Your reply').fill('Thank you!');
    await page.getByRole('button', { name: 'Reply', exact: true }).last().click();
    const reply = page.locator('.comment .thread .comment', { hasText: 'Thank you!' });
    await reply.waitFor();
    await page.getByRole('heading', { name: '2 comments' }).waitFor();
    await screenshot(page, 'post', true);
    await reply.getByRole('button', { name: 'Delete' }).click();
    await reply.getByRole('button', { name: 'Delete' }).click();
    await reply.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: '1 comment' }).waitFor();
  });

  it('steps to the neighbouring post with the arrow keys', async () => {
    await page.goto('/');
    await page.locator('.tile a').first().click();
    const firstUrl = page.url();
    await page.locator('a[rel=next]').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.waitForURL((u) => u.href !== firstUrl);
    await page.locator('a[rel=prev]').waitFor();
    await page.keyboard.press('ArrowLeft');
    await page.waitForURL(firstUrl);
  });

  it('shows the free tier’s key cap, then creates, lists and revokes a key', async () => {
    await page.goto('/settings');
    const tier = page.getByTestId('tier');
    await tier.filter({ hasText: 'free' }).waitFor();
    assert.match(await page.getByTestId('key-cap').innerText(), /free tier includes no API keys/);
    await page.getByLabel('Name of the new key').fill('too-early');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#api-keys [role=alert]').filter({ hasText: /free/i }).waitFor();

    await board.app.deps.db.updateTable('users').set({ tier: 'basic' }).where('username_lower', '=', 'alice').execute();
    await page.reload();
    await tier.filter({ hasText: 'basic' }).waitFor();
    assert.match(await tier.innerText(), /allows 1 active key; you have 0/);
    await page.getByLabel('Name of the new key').fill('my-script');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = await page.getByTestId('new-key').inputValue();
    assert.match(secret, /^ib_[A-Za-z0-9_-]{43}$/);
    assert.ok(await page.getByRole('button', { name: 'Copy' }).isVisible());
    const row = page.locator('tr', { hasText: 'my-script' });
    await row.filter({ hasText: 'Active' }).waitFor();
    assert.match(await row.innerText(), /never/);
    await page
      .getByTestId('key-cap')
      .filter({ hasText: /limit of 1 active key/ })
      .waitFor();
    await screenshot(page, 'settings', true);

    // Use the key once from outside; the list shows the use after a reload.
    const res = await fetch(`${board.url}/api/auth/me`, { headers: { 'X-API-Key': secret } });
    assert.equal(res.status, 200);
    await page.reload();
    await row.filter({ hasText: 'just now' }).waitFor();

    await row.getByRole('button', { name: 'Revoke key my-script' }).click();
    await row.getByRole('button', { name: 'Revoke key', exact: true }).click();
    await row.filter({ hasText: 'Revoked' }).waitFor();
    assert.equal((await fetch(`${board.url}/api/auth/me`, { headers: { 'X-API-Key': secret } })).status, 401);
  });

  it('edits the profile (bio and avatar) and shows it with stats and uploads', async () => {
    await page.getByLabel('Bio').fill('I photograph harbours.');
    await page.getByLabel('Avatar').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: await png(5, 200, 200) });
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    await page.goto('/users/alice');
    await page.getByText('I photograph harbours.').waitFor();
    assert.match(await page.getByTestId('profile-stats').innerText(), /2\s*Uploads/i);
    assert.match((await page.locator('.profile .avatar').getAttribute('src')) ?? '', /^\/media\//);
    await page.waitForFunction(() => document.querySelectorAll('.tile').length === 2);
    await screenshot(page, 'profile');
    await page.getByRole('link', { name: 'Favorites', exact: true }).click();
    await page.waitForURL(/tab=favorites/);
    await page.waitForFunction(() => document.querySelectorAll('.tile').length === 1);
  });

  it('changes the password', async () => {
    await page.goto('/settings#password');
    await page.getByLabel('Current password').fill('correct horse battery');
    await page.getByLabel('New password (at least 8 characters)').fill('a much longer secret');
    await page.getByLabel('New password again').fill('a much longer secret');
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.').waitFor();
  });

  it('signs out, and back in (a wrong password is said in words)', async () => {
    await page.locator('summary', { hasText: 'alice' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    const me = await page.evaluate(() => fetch('/api/auth/me').then((r) => r.status));
    assert.equal(me, 401);

    await page.goto('/upload');
    await page.getByRole('main').getByRole('link', { name: 'Sign in' }).click();
    await page.getByLabel('Username').fill('alice');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.ok((await page.getByRole('alert').innerText()).length > 5);
    await screenshot(page, 'login');
    await page.getByLabel('Password').fill('a much longer secret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/upload$/);
    await page.locator('summary', { hasText: 'alice' }).waitFor();
    assert.deepEqual(errors, []);
  });
});
