// Personal filters in the browser (issue 25 points 7 and 9): a member's blacklist saved in settings
// leaves its posts out of the browse page, which says how many it hid; a refused line is named;
// clearing the blacklist brings the posts back. A visitor is told that only safe posts are shown.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createAccount } from '../../src/modules/users/accounts.ts';
import { createPost } from '../factories.ts';
import { putPreferences } from '../../src/modules/preferences/preferences.service.ts';
import { browserSuite, newPage, screenshot, signIn, startBoard, type Board } from './harness.ts';

browserSuite('browser: personal filters', { timeout: 180_000 }, () => {
  let board: Board;
  before(async () => {
    board = await startBoard();
    const { id } = await createAccount(board.app.deps, { username: 'picky', password: 'picky password' });
    const now = Date.now();
    // 3 cat posts, 4 dog posts, all safe; and one unsafe dog post.
    for (let i = 0; i < 8; i++) {
      await createPost(board.app.deps.db, {
        uploaderId: Number(id),
        title: `pet ${i}`,
        tags: i < 3 ? ['cat'] : ['dog'],
        rating: i === 7 ? 'unsafe' : 'safe',
        createdAt: now - (8 - i) * 60_000,
      });
    }
  });
  after(async () => {
    await board?.close();
  });

  const total = (page: Page) => page.getByTestId('total').innerText();
  const tiles = (page: Page) => page.locator('.grid .tile').count();

  async function saveFilters(page: Page, blacklist: string): Promise<void> {
    await page.goto('/settings#filters');
    await page.getByLabel('Blacklist').fill(blacklist);
    await page.getByRole('button', { name: 'Save filters' }).click();
  }

  it('a member blacklists cat: the browse page leaves out the cat posts and says how many; clearing it brings them back', async () => {
    const { page, errors, context } = await newPage(board);
    await page.goto('/login');
    await page.getByLabel('Username').fill('picky');
    await page.getByLabel('Password').fill('picky password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('summary', { hasText: 'picky' }).waitFor();

    await page.goto('/');
    await page
      .getByTestId('total')
      .filter({ hasText: /^8 posts$/ })
      .waitFor();
    assert.equal(await page.getByTestId('hidden-note').count(), 0, 'nothing hidden without filters');

    // A line that is not a search is refused with its line and character.
    await saveFilters(page, 'dog rating:unsafe\n\n(cat');
    await page.getByRole('alert').filter({ hasText: 'Line 3, character 1' }).waitFor();
    assert.match(await page.getByRole('alert').innerText(), /parenthesis/);

    await saveFilters(page, 'cat');
    await page.getByRole('status').filter({ hasText: 'Filters saved.' }).waitFor();
    await screenshot(page, 'settings-filters');
    await page.goto('/');
    await page.getByTestId('hidden-note').filter({ hasText: '3 posts hidden by your filters.' }).waitFor();
    assert.equal(await total(page), '5 posts');
    assert.equal(await tiles(page), 5);
    assert.equal(await page.getByRole('link', { name: /pet [0-2]\b/ }).count(), 0, 'no cat post is listed');
    await screenshot(page, 'browse-hidden-by-filters');
    await page.getByTestId('hidden-note').getByRole('link', { name: 'Edit filters' }).click();
    await page.getByLabel('Blacklist').waitFor();
    assert.equal(await page.getByLabel('Blacklist').inputValue(), 'cat', 'the editor shows what was saved');

    await saveFilters(page, '');
    await page.getByRole('status').filter({ hasText: 'Filters saved.' }).waitFor();
    await page.goto('/');
    await page
      .getByTestId('total')
      .filter({ hasText: /^8 posts$/ })
      .waitFor();
    assert.equal(await tiles(page), 8);
    assert.equal(await page.getByTestId('hidden-note').count(), 0);
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('the settings editors show what is stored, even when it comes slowly (nothing typed over, nothing saved empty)', async () => {
    const account = await createAccount(board.app.deps, { username: 'slowpoke', password: 'slowpoke password' });
    const viewer = { id: Number(account.id), username: 'slowpoke', role: 'user' as const, tier: 'free' as const };
    await putPreferences(board.app.deps, viewer, { blacklist: ['spiders'], ratings: ['safe'] });
    await board.app.deps.db.updateTable('users').set({ bio: 'I collect bridges.' }).where('id', '=', viewer.id).execute();
    const { page, errors, context } = await newPage(board);
    await signIn(page, 'slowpoke', 'slowpoke password');
    // The stored profile and filters arrive late: an editor drawn before them showed them empty.
    await page.route(/\/api\/users\/(slowpoke|me\/preferences)$/, async (route) => {
      if (route.request().method() === 'GET') await new Promise((r) => setTimeout(r, 400));
      await route.continue();
    });
    await page.goto('/settings');
    await page.getByLabel('Bio').waitFor();
    assert.equal(await page.getByLabel('Bio').inputValue(), 'I collect bridges.');
    await page.getByLabel('Blacklist').waitFor();
    assert.equal(await page.getByLabel('Blacklist').inputValue(), 'spiders');
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('a visitor who asks for every rating is told that visitors see safe posts only, and how many are hidden', async () => {
    const { page, errors, context } = await newPage(board);
    await page.goto('/?rating=all');
    await page.getByTestId('hidden-note').filter({ hasText: 'Visitors see safe posts only: 1 post hidden.' }).waitFor();
    assert.equal(await total(page), '7 posts');
    await page.goto('/?rating=unsafe');
    await page
      .getByTestId('total')
      .filter({ hasText: /^1 post$/ })
      .waitFor();
    assert.equal(await tiles(page), 1, 'a rating chosen in the filters is listed');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
