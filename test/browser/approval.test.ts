// Upload approval in Chromium (UPLOAD_APPROVAL=all): a member uploads, is told the post waits for
// approval and sees it with a notice; a visitor does not find it in the list; a moderator approves
// it in the Pending tab of /moderation, and then the visitor finds it.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createAccount } from '../../src/modules/users/accounts.ts';
import { createPost } from '../factories.ts';
import { png } from '../media-fixtures.ts';
import { browserSuite, dropFiles, newPage, screenshot, signIn, startBoard, type Board } from './harness.ts';

const PASSWORD = 'correct horse battery';

browserSuite('browser: upload approval, the Pending tab', { timeout: 240_000 }, () => {
  let board: Board;
  let member: Page;
  let mod: Page;
  let visitor: Page;
  let pendingId: string;
  const errors: string[][] = [];

  async function page(username?: string): Promise<Page> {
    const { page: p, errors: e } = await newPage(board);
    errors.push(e);
    if (username) await signIn(p, username, PASSWORD);
    return p;
  }

  before(async () => {
    board = await startBoard({ config: { uploadApproval: 'all' } });
    const deps = board.app.deps;
    const boss = await createAccount(deps, { username: 'boss', password: PASSWORD, role: 'admin' });
    await createAccount(deps, { username: 'mod', password: PASSWORD, role: 'moderator' });
    await createAccount(deps, { username: 'mia', password: PASSWORD });
    await createPost(deps.db, { uploaderId: boss.id, title: 'Harbour at night', tags: ['harbour'], createdAt: Date.now() - 60_000 });
    member = await page('mia');
    mod = await page('mod');
    visitor = await page();
  });
  after(async () => {
    for (const e of errors) assert.deepEqual(e, []);
    await board?.close();
  });

  it("a member's upload says it waits for approval, and its page says so to the uploader", async () => {
    await member.goto('/upload');
    await member.getByRole('heading', { name: 'Upload' }).waitFor();
    await dropFiles(member, '[data-testid=dropzone]', [{ name: 'lighthouse.png', mimeType: 'image/png', buffer: await png(31, 300, 200) }]);
    await member.getByLabel('Title for lighthouse.png').fill('Pending lighthouse');
    await member.getByLabel(/Tags for these files/).fill('lighthouse');
    await member.getByRole('button', { name: 'Upload', exact: true }).click();
    const note = member.getByTestId('upload-pending');
    await note.waitFor();
    assert.match(await note.innerText(), /waits for a moderator's approval/);
    const href = await note.getByRole('link', { name: 'View “Pending lighthouse”' }).getAttribute('href');
    pendingId = href!.split('/').pop()!;
    await note.getByRole('link').click();
    await member.getByTestId('pending-notice').waitFor();
    assert.equal(await member.locator('.post-title').innerText(), 'Pending lighthouse');
    await screenshot(member, 'approval-pending-post');
  });

  it('a visitor does not see it in the list', async () => {
    await visitor.goto('/');
    await visitor.getByRole('link', { name: /^Harbour at night,/ }).waitFor();
    assert.equal(await visitor.locator(`a[href="/posts/${pendingId}"]`).count(), 0);
  });

  it('a moderator approves it in the Pending tab; then the visitor sees it', async () => {
    await mod.goto('/moderation');
    await mod.getByRole('link', { name: 'Pending', exact: true }).click();
    const row = mod.locator(`tr[data-pending-id="${pendingId}"]`);
    await row.waitFor();
    assert.match(await row.innerText(), /Pending lighthouse[\s\S]*lighthouse[\s\S]*mia/);
    // The row can show before its thumbnail has arrived: wait for the image to load or fail, then check it loaded.
    const loaded = await row.locator('img').evaluate(
      (img: HTMLImageElement) =>
        new Promise<boolean>((resolve) => {
          if (img.complete) return resolve(img.naturalWidth > 0);
          img.addEventListener('load', () => resolve(img.naturalWidth > 0), { once: true });
          img.addEventListener('error', () => resolve(false), { once: true });
        }),
    );
    assert.ok(loaded, 'the thumbnail loads');
    await screenshot(mod, 'approval-queue');
    await row.getByRole('button', { name: 'Approve' }).click();
    await mod.getByText('No uploads wait for approval.').waitFor();

    await visitor.goto('/');
    await visitor.getByRole('link', { name: /^Pending lighthouse,/ }).waitFor();
    await visitor.goto(`/posts/${pendingId}`);
    await visitor.locator('.post-title').waitFor();
    assert.equal(await visitor.getByTestId('pending-notice').count(), 0);
  });
});
