// A post's source, family and history in Chromium: a member uploads with a source (a parent that
// does not exist is refused at its field first), edits the tags twice, reads the diffs in the
// History (fetched only when opened) and reverts to version 1; another member sees no revert
// button, and a banned uploader's revert shows the API's 403. Then a parent set in the editor: its
// own id is refused at the field, another post becomes the parent and lists the child (its
// source, not http or https, shown as text).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createAccount } from '../../src/modules/users/accounts.ts';
import { cookieHeader, sessionToken } from '../auth-helpers.ts';
import { createPost } from '../factories.ts';
import { png } from '../media-fixtures.ts';
import { browserSuite, dropFiles, screenshot, signInAs, startBoard, type Board } from './harness.ts';

const PASSWORD = 'correct horse battery';
const SOURCE = 'https://art.example/works/17';

browserSuite('browser: post source, parent and children, history and revert', { timeout: 240_000 }, () => {
  let board: Board;
  let alice: Page;
  let bob: Page;
  let postId: string;
  const errors: string[][] = [];
  const historyRequests: string[] = [];

  const signedIn = (username: string) => signInAs(board, username, PASSWORD, errors);

  /** The post's tags as its side panel lists them, sorted. */
  const shownTags = async (page: Page) => (await page.getByTestId('post-tags').locator('a[href^="/?tag="]').allInnerTexts()).sort();

  /** Saves the post editor with these tags (and rating), and waits for the page to show them. */
  async function editTags(page: Page, tags: string, rating?: string) {
    await page.getByRole('button', { name: 'Edit post' }).click();
    await page.getByLabel('Tags (comma-separated)').fill(tags);
    if (rating) await page.getByLabel(rating).check();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Edit post' }).waitFor();
    const want = tags.split(',').map((t) => t.trim());
    await page.waitForFunction((names) => names.every((n) => document.querySelector('[data-testid=post-tags]')?.textContent?.includes(n)), want);
  }

  before(async () => {
    board = await startBoard();
    const deps = board.app.deps;
    await createAccount(deps, { username: 'alice', password: PASSWORD });
    await createAccount(deps, { username: 'bob', password: PASSWORD });
    await createAccount(deps, { username: 'boss', password: PASSWORD, role: 'admin' });
    alice = await signedIn('alice');
    bob = await signedIn('bob');
    alice.on('request', (r) => {
      if (r.url().includes('/history')) historyRequests.push(r.url());
    });
  });
  after(async () => {
    for (const e of errors) assert.deepEqual(e, []);
    await board?.close();
  });

  it('uploads with a source; a parent that does not exist is refused at its field, and the file goes once it is cleared', async () => {
    await alice.goto('/upload');
    await dropFiles(alice, '[data-testid=dropzone]', [{ name: 'lighthouse.png', mimeType: 'image/png', buffer: await png(31, 320, 240) }]);
    await alice.getByLabel('Title for lighthouse.png').fill('Lighthouse');
    await alice.getByLabel(/Tags for these files/).fill('hist_a, hist_b');
    await alice.getByLabel('Source').fill(SOURCE);
    await alice.getByLabel('Parent post id').fill('987654');
    await alice.getByRole('button', { name: 'Upload', exact: true }).click();
    const fieldError = alice.locator('#u-parent-error');
    await fieldError.waitFor();
    assert.equal(await fieldError.innerText(), 'post 987654 does not exist');
    assert.equal(await alice.getByLabel('Parent post id').getAttribute('aria-invalid'), 'true');
    assert.equal(await alice.locator('#u-source-error').count(), 0, 'the source was fine');
    await screenshot(alice, 'upload-parent-error');

    await alice.getByLabel('Parent post id').fill('');
    assert.equal(await fieldError.count(), 0, 'the note goes once the field is edited');
    await alice.getByRole('button', { name: 'Upload', exact: true }).click();
    const view = alice.getByRole('link', { name: 'View “Lighthouse”' });
    await view.waitFor();
    postId = ((await view.getAttribute('href')) ?? '').replace('/posts/', '');
    assert.match(postId, /^\d+$/);
  });

  it('shows the source as a link that gives the other site nothing; no parent or children when there are none', async () => {
    await alice.goto(`/posts/${postId}`);
    const source = alice.getByTestId('post-source');
    await source.waitFor();
    assert.equal(await source.getAttribute('href'), SOURCE);
    assert.equal(await source.getAttribute('rel'), 'noopener noreferrer nofollow');
    assert.equal(await alice.getByRole('heading', { name: 'Related posts' }).count(), 0);
  });

  it('lists the versions newest first with their diffs, fetched only when History is opened', async () => {
    await editTags(alice, 'hist_a, hist_c');
    await editTags(alice, 'hist_c, hist_d', 'sketchy');
    assert.deepEqual(historyRequests, [], 'nothing asked before History is opened');
    await alice.locator('summary', { hasText: 'History' }).click();
    const versions = alice.getByTestId('post-history').locator(':scope > li');
    await versions.first().waitFor();
    assert.equal(historyRequests.length, 1);
    assert.deepEqual(await versions.evaluateAll((els) => els.map((e) => e.getAttribute('data-version'))), ['3', '2', '1']);
    const diff = async (v: string) => (await alice.locator(`[data-version="${v}"] .version-diff li`).allInnerTexts()).map((t) => t.trim());
    assert.deepEqual(await diff('3'), ['+hist_d', '-hist_a', 'rating: safe → sketchy']);
    assert.deepEqual(await diff('2'), ['+hist_c', '-hist_b']);
    assert.deepEqual(await diff('1'), ['+hist_a', '+hist_b', 'title: Lighthouse', 'rating: safe', `source: ${SOURCE}`]);
    assert.match(await alice.locator('[data-version="3"] .version-head').innerText(), /Version 3 \(current\) by alice ·/);
    // Added in green, removed in red (the light theme's --ok and --danger).
    const color = (sel: string) =>
      alice
        .locator(sel)
        .first()
        .evaluate((el) => getComputedStyle(el).color);
    assert.equal(await color('[data-version="3"] ins.diff-add'), 'rgb(21, 128, 61)');
    assert.equal(await color('[data-version="3"] del.diff-del'), 'rgb(200, 30, 30)');
    // The current version has nothing to revert to.
    assert.equal(await alice.locator('[data-version="3"]').getByRole('button', { name: 'Revert to this version' }).count(), 0);
    await screenshot(alice, 'post-history');
  });

  it('another member sees the history but no revert button', async () => {
    await bob.goto(`/posts/${postId}`);
    await bob.locator('summary', { hasText: 'History' }).click();
    await bob.locator('[data-version="1"]').waitFor();
    assert.equal(await bob.getByRole('button', { name: 'Revert to this version' }).count(), 0);
    assert.equal(await bob.getByRole('button', { name: 'Edit post' }).count(), 0);
  });

  it('reverts to version 1 after a confirmation: the page shows the first tags and rating, the history a new version', async () => {
    const first = alice.locator('[data-version="1"]');
    await first.getByRole('button', { name: 'Revert to this version' }).click();
    await first.getByText('Give the post version 1’s title, tags, rating, source and parent again?').waitFor();
    assert.deepEqual(await shownTags(alice), ['hist_c', 'hist_d'], 'nothing changes before the confirmation');
    await first.getByRole('button', { name: 'Yes, revert' }).click();
    await alice.locator('[data-version="4"]').waitFor();
    assert.deepEqual(await shownTags(alice), ['hist_a', 'hist_b']);
    assert.equal(await alice.locator('.post-side .badge').first().textContent(), 'safe');
    assert.deepEqual(await alice.locator('[data-version="4"] .version-diff li').allInnerTexts(), [
      '+hist_a',
      '+hist_b',
      '-hist_c',
      '-hist_d',
      'rating: sketchy → safe',
    ]);
    // The editor opens on the post as it is now, not as it was before the revert.
    await alice.getByRole('button', { name: 'Edit post' }).click();
    assert.equal(await alice.getByLabel('Tags (comma-separated)').inputValue(), 'hist_a, hist_b');
    await alice.getByRole('button', { name: 'Cancel' }).click();
  });

  it('shows the 403 of a revert the API refuses (the uploader banned meanwhile)', async () => {
    const login = await board.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'boss', password: PASSWORD } });
    const boss = cookieHeader(sessionToken(login)!);
    const ban = await board.app.inject({ method: 'PUT', url: '/api/admin/users/alice/ban', headers: boss, payload: { reason: 'vandal edits' } });
    assert.equal(ban.statusCode, 200, ban.body);
    const second = alice.locator('[data-version="2"]');
    await second.getByRole('button', { name: 'Revert to this version' }).click();
    await second.getByRole('button', { name: 'Yes, revert' }).click();
    await second.getByRole('alert').filter({ hasText: 'vandal edits' }).waitFor();
    assert.deepEqual(await shownTags(alice), ['hist_a', 'hist_b'], 'nothing changed');
    assert.equal((await board.app.inject({ method: 'DELETE', url: '/api/admin/users/alice/ban', headers: boss })).statusCode, 200);
  });

  it('sets a parent in the editor: its own id is refused at the field; then the child shows its parent, and the parent its child', async () => {
    const db = board.app.deps.db;
    const bobId = (await db.selectFrom('users').select('id').where('username', '=', 'bob').executeTakeFirstOrThrow()).id;
    const parent = String(await createPost(db, { uploaderId: bobId, title: 'Harbour, wide', tags: ['harbour'], createdAt: Date.now() - 60_000 }));
    // A source the API would refuse now (imported, or older data) is shown as text, never as a link.
    await db.updateTable('posts').set({ source: 'javascript:alert(1)' }).where('id', '=', Number(parent)).execute();
    await alice.goto(`/posts/${postId}`);
    await alice.getByRole('button', { name: 'Edit post' }).click();
    await alice.getByLabel('Parent post id').fill(postId);
    await alice.getByRole('button', { name: 'Save' }).click();
    const fieldError = alice.locator('#e-parent-error');
    await fieldError.waitFor();
    assert.equal(await fieldError.innerText(), 'a post cannot be its own parent');
    assert.equal(await alice.locator('form[aria-label="Edit post"] .note-error').count(), 0, 'said once, at the field');
    await screenshot(alice, 'post-parent-error');

    await alice.getByLabel('Parent post id').fill(`#${parent}`);
    await alice.getByRole('button', { name: 'Save' }).click();
    const parentLink = alice.getByTestId('post-parent').getByRole('link');
    await parentLink.filter({ hasText: 'Harbour, wide' }).waitFor();
    assert.equal(await parentLink.getAttribute('href'), `/posts/${parent}`);
    assert.equal((await parentLink.innerText()).trim(), `#${parent} Harbour, wide`);
    assert.equal(await alice.getByTestId('post-parent').locator('img').count(), 1, 'with its thumbnail');
    assert.equal(await alice.getByTestId('post-children').count(), 0);

    await parentLink.click();
    await alice.getByRole('heading', { name: 'Harbour, wide' }).waitFor();
    const children = alice.getByTestId('post-children');
    await children.waitFor();
    assert.deepEqual(await children.getByRole('link').allInnerTexts(), [`#${postId}`]);
    assert.equal(await children.getByRole('link').getAttribute('href'), `/posts/${postId}`);
    assert.equal(await alice.getByTestId('post-parent').count(), 0);
    const source = alice.getByTestId('post-source');
    assert.equal(await source.innerText(), 'javascript:alert(1)');
    assert.equal(await source.evaluate((el) => el.tagName), 'SPAN');
    assert.equal(await alice.locator('.post-side a[href^="javascript:"]').count(), 0);
  });
});
