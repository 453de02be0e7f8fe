// Tags as a curated board shows them: grouped and coloured by category on a post, a page of their
// own (description, other names, implications, newest posts) that moderators edit, and the tags
// list filtered by category.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createPost } from '../factories.ts';
import { browserSuite, newPage, screenshot, startBoard, type Board } from './harness.ts';

browserSuite('browser: tag categories and tag pages', { timeout: 180_000 }, () => {
  let board: Board;
  let page: Page;
  let errors: string[];
  let postId: number;
  let cookie: string;
  before(async () => {
    board = await startBoard();
    ({ page, errors } = await newPage(board));
    const reg = await board.app.inject({ method: 'POST', url: '/api/auth/register', payload: { username: 'tagmod', password: 'correct horse battery' } });
    assert.equal(reg.statusCode, 201, reg.body);
    const db = board.app.deps.db;
    await db.updateTable('users').set({ role: 'moderator' }).where('username', '=', 'tagmod').execute();
    const uploader = (await db.selectFrom('users').select('id').where('username', '=', 'tagmod').executeTakeFirstOrThrow()).id;
    postId = await createPost(db, { uploaderId: uploader, title: 'Harbour sketch', tags: ['jane_doe', 'harbour', 'boat'], createdAt: Date.now() - 60_000 });
    const login = await board.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'tagmod', password: 'correct horse battery' } });
    cookie = ([] as string[])
      .concat(login.headers['set-cookie'] as string | string[])
      .map((c) => c.split(';')[0])
      .join('; ');
    const alias = await board.app.inject({ method: 'POST', url: '/api/tag-aliases', payload: { from: 'janedoe', to: 'jane_doe' }, headers: { cookie } });
    assert.equal(alias.statusCode, 201, alias.body);
  });
  after(async () => {
    assert.deepEqual(errors, []);
    await board?.close();
  });

  it('lets a moderator give a tag its category and description on the tag page', async () => {
    await page.goto('/login');
    await page.getByLabel('Username').fill('tagmod');
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('summary', { hasText: 'tagmod' }).waitFor();
    // An alias name leads to its target's page.
    await page.goto('/tags/janedoe');
    await page.waitForURL(/\/tags\/jane_doe$/);
    assert.equal(await page.getByTestId('tag-name').innerText(), 'jane_doe');
    assert.equal(await page.getByTestId('tag-aliases').innerText(), 'janedoe');
    assert.equal(await page.getByTestId('tag-implies').innerText(), 'none');
    await page.locator('.grid .tile').first().waitFor();
    await page.getByLabel('Category').selectOption('artist');
    await page.getByLabel('Description').fill('Draws harbours, mostly at dusk.');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid=tag-name]')?.classList.contains('cat-artist'));
    assert.equal(await page.getByTestId('tag-description').innerText(), 'Draws harbours, mostly at dusk.');
    const tag = await (await fetch(`${board.url}/api/tags/jane_doe`)).json();
    assert.equal(tag.category, 'artist');
    // The page's history shows the change just made, above the alias made before, with who made them.
    const history = page.getByTestId('tag-history').locator('li');
    await history.filter({ hasText: 'category: general → artist; description changed' }).waitFor();
    assert.deepEqual(
      (await history.allInnerTexts()).map((t) => t.split(' · ')[0]),
      ['category: general → artist; description changed by tagmod', 'alias janedoe → jane_doe added by tagmod'],
    );
    await screenshot(page, 'tag');
  });

  it('groups a post’s tags by category, artist first, each coloured and linked to its page', async () => {
    await page.goto(`/posts/${postId}`);
    const tags = page.getByTestId('post-tags');
    await tags.locator('.tag-group').first().waitFor();
    const groups = await tags
      .locator('.tag-group')
      .evaluateAll((els) => els.map((g) => [g.getAttribute('data-category'), [...g.querySelectorAll('a[href^="/?tag="]')].map((a) => a.textContent)]));
    assert.deepEqual(groups, [
      ['artist', ['jane_doe']],
      ['general', ['boat', 'harbour']],
    ]);
    const artist = tags.getByRole('link', { name: 'jane_doe', exact: true });
    assert.equal(await artist.getAttribute('class'), 'cat-artist');
    assert.equal(await tags.getByRole('link', { name: 'About jane_doe' }).getAttribute('href'), '/tags/jane_doe');
    await tags.locator('li', { hasText: 'harbour' }).filter({ hasText: '1' }).waitFor();
  });

  it('says what the "?" before each tag on a post is: the tag\'s page, on hover and to a screen reader', async () => {
    const tags = page.getByTestId('post-tags');
    const about = tags.locator('a.tag-about');
    assert.equal(await about.count(), 3);
    for (const name of ['jane_doe', 'boat', 'harbour']) {
      const link = tags.getByRole('link', { name: `About ${name} (the tag's page)`, exact: true });
      assert.equal(await link.innerText(), '?');
      assert.equal(await link.getAttribute('href'), `/tags/${name}`);
      assert.match((await link.getAttribute('title')) ?? '', new RegExp(`^About ${name}: the tag's page, with what it means`));
    }
    await about.first().hover();
    await screenshot(page, 'post-tag-about');
  });

  it('filters the tags list by category', async () => {
    await page.goto('/tags');
    await page.locator('.tags-table tbody tr').nth(2).waitFor();
    await page.getByLabel('Category').selectOption('artist');
    await page.waitForURL(/category=artist/);
    await page.waitForFunction(() => {
      const rows = document.querySelectorAll('.tags-table tbody tr');
      return rows.length === 1 && rows[0].textContent?.includes('jane_doe');
    });
    assert.equal(await page.locator('.tags-table tbody a.cat-artist').innerText(), 'jane_doe');
  });

  it('lets a moderator add and remove an alias on the tag relations page', async () => {
    await page.goto('/tags');
    await page.getByRole('link', { name: 'Aliases and implications' }).click();
    const aliases = page.getByTestId('aliases');
    await aliases.locator('li', { hasText: 'janedoe' }).waitFor();
    await aliases.getByLabel('From').fill('Ship');
    await aliases.getByLabel('To').fill('boat');
    await aliases.getByRole('button', { name: 'Add' }).click();
    await aliases.locator('li', { hasText: 'ship is read as boat' }).waitFor();
    // A chain is refused, and the reason shown.
    await aliases.getByLabel('From').fill('vessel');
    await aliases.getByLabel('To').fill('ship');
    await aliases.getByRole('button', { name: 'Add' }).click();
    await aliases.getByRole('alert').filter({ hasText: 'ship' }).waitFor();
    // Searching by the alias finds the post tagged with its target.
    const found = await (await fetch(`${board.url}/api/posts?tag=ship`)).json();
    assert.deepEqual(
      found.posts.map((p: { id: string }) => p.id),
      [String(postId)],
    );
    await screenshot(page, 'tag-relations');
    await aliases.getByRole('button', { name: 'Remove ship is read as boat' }).click();
    await page.waitForFunction(() => !document.querySelector('[data-testid=aliases]')?.textContent?.includes('ship is read as'));
    assert.equal((await (await fetch(`${board.url}/api/posts?tag=ship`)).json()).posts.length, 0);
  });

  it('lets a moderator add an implication: existing posts get the implied tag, and the tag page shows it', async () => {
    await page.goto('/tag-relations');
    const implications = page.getByTestId('implications');
    await implications.getByLabel('From').fill('boat');
    await implications.getByLabel('To').fill('vehicle');
    await implications.getByRole('button', { name: 'Add' }).click();
    await implications.locator('li', { hasText: 'boat implies vehicle' }).waitFor();
    // The post tagged boat is given vehicle by the background job.
    await page.waitForFunction(
      async (url) => ((await (await fetch(url)).json()) as { posts: unknown[] }).posts.length === 1,
      `${board.url}/api/posts?tag=vehicle`,
      { polling: 250 },
    );
    await page.goto('/tags/boat');
    assert.equal(await page.getByTestId('tag-implies').innerText(), 'vehicle');
    await page.goto('/tags/vehicle');
    assert.equal(await page.getByTestId('tag-implied-by').innerText(), 'boat');
  });

  it('adds the tags a typed tag implies while editing a post’s tags', async () => {
    await page.goto(`/posts/${postId}`);
    await page.getByRole('button', { name: 'Edit post' }).click();
    const field = page.getByLabel('Tags (comma-separated)');
    await field.fill('harbour, boat, ');
    await page.waitForFunction(() => (document.getElementById('e-tags') as HTMLInputElement | null)?.value === 'harbour, boat, vehicle, ');
    assert.match(await page.getByTestId('e-tags-implied').innerText(), /vehicle/);
  });
});
