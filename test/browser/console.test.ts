// A board used as intended leaves the browser's console clean: no script error, no failed
// request, no Content-Security-Policy report, for a visitor and for a member, on the main pages,
// in the tag box while a new tag is typed, and on the API documentation, which carries the
// board's name rather than Fastify's logo.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createAccount } from '../../src/modules/users/accounts.ts';
import { addComment, createPool } from '../factories.ts';
import { png } from '../media-fixtures.ts';
import { multipart } from '../multipart.ts';
import { browserSuite, newPage, screenshot, signIn, startBoard, type Board } from './harness.ts';

const PASSWORD = 'correct horse battery';

/** Everything the console would show in red, each as one line naming the page it came from. */
function watchConsole(page: Page): string[] {
  const seen: string[] = [];
  const where = () => new URL(page.url()).pathname;
  page.on('console', (m) => {
    if (m.type() === 'error') seen.push(`${where()}: console: ${m.text()}`);
  });
  page.on('pageerror', (err) => seen.push(`${where()}: script error: ${err.message}`));
  page.on('requestfailed', (r) => {
    // A request the page itself cancelled (a newer search, leaving the page) is no failure, and
    // the console does not show it as one.
    if (r.failure()?.errorText !== 'net::ERR_ABORTED') seen.push(`${where()}: failed: ${r.method()} ${r.url()} ${r.failure()?.errorText}`);
  });
  page.on('response', (r) => {
    if (r.status() >= 400) seen.push(`${where()}: ${r.status()}: ${r.request().method()} ${r.url()}`);
  });
  return seen;
}

/** Opens `path` and waits until the page has drawn and asked for all it needs. */
async function visit(page: Page, path: string): Promise<void> {
  await page.goto(path);
  await page.locator('main h1, #swagger-ui .title').first().waitFor();
  await page.waitForLoadState('networkidle');
}

browserSuite('browser: a clean console for visitors and members, and the API documentation', { timeout: 240_000 }, () => {
  let board: Board;
  let postId: string;
  let poolId: number;
  let pages: string[];

  before(async () => {
    board = await startBoard();
    const deps = board.app.deps;
    const mia = await createAccount(deps, { username: 'mia', password: PASSWORD });
    const login = await board.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'mia', password: PASSWORD } });
    const cookie = String(login.headers['set-cookie']).split(';')[0];
    // Real uploads: the grid's thumbnails must exist, or their 404s would be this test's failures.
    const ids: string[] = [];
    for (const seed of [1, 2]) {
      const form = multipart({ tags: 'harbour, boat', title: `Harbour ${seed}` }, [{ filename: `h${seed}.png`, data: await png(seed) }]);
      const res = await board.app.inject({ method: 'POST', url: '/api/upload', payload: form.payload, headers: { ...form.headers, cookie } });
      assert.equal(res.statusCode, 201, res.body);
      ids.push(res.json().post.id);
    }
    postId = ids[0];
    // An implication, so the tag box's look-ups are seen to work and not only to stay quiet.
    await createAccount(deps, { username: 'mod', password: PASSWORD, role: 'moderator' });
    const modLogin = await board.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'mod', password: PASSWORD } });
    const modCookie = String(modLogin.headers['set-cookie']).split(';')[0];
    const implied = await board.app.inject({
      method: 'POST',
      url: '/api/tag-implications',
      payload: { from: 'harbour', to: 'sea' },
      headers: { cookie: modCookie },
    });
    assert.equal(implied.statusCode, 202, implied.body);
    await addComment(deps.db, { postId: Number(postId), userId: mia.id, content: 'Lovely light', createdAt: Date.now() });
    poolId = await createPool(deps.db, { creatorId: mia.id, name: 'Harbours', postIds: ids.map(Number), at: Date.now() });
    pages = [
      '/',
      '/?tag=harbour',
      `/posts/${postId}`,
      '/tags',
      '/tags/harbour',
      '/tag-relations',
      '/pools',
      `/pools/${poolId}`,
      '/users/mia',
      '/help/search',
      '/upload',
    ];
  });
  after(async () => {
    await board?.close();
  });

  it("a visitor's pages, sign-in and sign-up forms log nothing", async () => {
    const { page, context } = await newPage(board);
    const seen = watchConsole(page);
    for (const path of [...pages, '/login', '/register']) await visit(page, path);
    assert.deepEqual(seen, []);
    await context.close();
  });

  it("a member's pages and the tag box, given a tag no post has yet, log nothing", async () => {
    const { page, context } = await newPage(board);
    const seen = watchConsole(page);
    await signIn(page, 'mia', PASSWORD);
    for (const path of [...pages, '/settings', '/users/mia?tab=favorites']) await visit(page, path);

    // On the upload form a finished entry is looked up for what it implies, and the word being
    // typed for suggestions: neither exists yet.
    await visit(page, '/upload');
    const box = page.getByLabel('Tags for these files (comma-separated)');
    await box.pressSequentially('harbour, brand_new_thing, another_new', { delay: 20 });
    await page.getByTestId('u-tags-implied').filter({ hasText: 'sea' }).waitFor();
    await page.waitForLoadState('networkidle');
    const typed = (await box.inputValue()).split(',').map((t) => t.trim());
    assert.deepEqual(typed.sort(), ['another_new', 'brand_new_thing', 'harbour', 'sea']);

    // Signing out ends at the browse page, which now asks as a visitor.
    await page.locator('summary', { hasText: 'mia' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    await page.reload();
    await page.getByRole('link', { name: 'Sign in' }).waitFor();
    await page.waitForLoadState('networkidle');
    assert.deepEqual(seen, []);
    await context.close();
  });

  it("the API documentation obeys the page's security policy and carries the board's name", async () => {
    const { page, context } = await newPage(board);
    const seen = watchConsole(page);
    await visit(page, '/api/docs');
    await page.locator('#swagger-ui .opblock').first().waitFor();
    // Open one operation: its parts are drawn only then.
    await page.locator('#swagger-ui .opblock-summary').first().click();
    await page.locator('#swagger-ui .opblock-body').first().waitFor();
    await page.waitForLoadState('networkidle');
    const home = page.getByRole('banner').getByRole('link', { name: 'imageboard' });
    assert.equal(await home.getAttribute('href'), '/', 'the name leads back to the board');
    assert.match(await page.title(), /^imageboard/);
    assert.equal(await page.locator('#swagger-ui .topbar').count(), 0, 'no Swagger top bar and so no Fastify logo in it');
    await screenshot(page, 'api-docs');
    assert.deepEqual(seen, []);
    await context.close();
  });
});
