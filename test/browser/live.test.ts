// The live board in the browser (issue 60): the browse page says when new posts of its list
// arrive and shows them on a click; a post's page shows others' comments as they are made; the
// settings save searches and register webhooks; the header counts the feed's new posts.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { createPost } from '../factories.ts';
import { register, type Account } from '../auth-helpers.ts';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { browserSuite, newPage, screenshot, signIn, startBoard, type Board } from './harness.ts';

browserSuite('browser: the live board', { timeout: 180_000 }, () => {
  let board: Board;
  let page: Page;
  let errors: string[];
  let alice: Account;
  const post = (tags: string[], title: string) => createPost(board.app.deps.db, { uploaderId: Number(alice.id), tags, title, createdAt: Date.now() });

  before(async () => {
    board = await startBoard({ config: { webhooks: { allowPrivate: true, maxFailures: 20, timeoutSeconds: 5 } } });
    alice = await register(board.app, 'alice');
    await post(['lake'], 'first lake');
    ({ page, errors } = await newPage(board));
  });
  after(async () => {
    await board?.close();
  });

  it('says when posts of the list arrive, and shows them on a click', async () => {
    await page.goto('/?tag=lake');
    await page.getByRole('link', { name: /^first lake/ }).waitFor();
    await post(['forest'], 'not this list');
    const fresh = await post(['lake', 'dusk'], 'lake at dusk');
    const note = page.getByTestId('new-posts');
    await note.waitFor();
    assert.equal(await note.innerText(), '1 new post: show');
    await screenshot(page, 'live-new-posts');
    await note.click();
    await page.locator(`a[href="/posts/${fresh}"]`).waitFor();
    assert.equal(await note.count(), 0, 'the note goes once they are shown');
    assert.equal(await page.getByRole('link', { name: /^not this list/ }).count(), 0);
    assert.deepEqual(errors, []);
  });

  it("shows others' comments on an open post without a reload", async () => {
    const id = await post(['lake'], 'quiet lake');
    await page.goto(`/posts/${id}`);
    await page.getByRole('heading', { name: /comment/i }).waitFor();
    // Once the thread has been read (the post stayed on screen), a comment made elsewhere appears.
    await page.waitForTimeout(1500);
    const made = await board.app.inject({
      method: 'POST',
      url: '/api/comments',
      headers: alice.headers,
      payload: { postId: String(id), content: 'what a calm evening' },
    });
    assert.equal(made.statusCode, 201, made.body);
    await page.getByText('what a calm evening').waitFor();
    assert.equal(await page.getByRole('heading', { name: '1 comment' }).count(), 1);
    assert.deepEqual(errors, []);
  });

  it('saves a search whose new posts the header counts and the feed lists, and registers a webhook that gets them', async () => {
    const got: string[] = [];
    const target = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        got.push(body);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    try {
      const member = await newPage(board);
      await signIn(member.page, 'alice');
      const p = member.page;
      await p.goto('/settings#saved-searches');
      await p.getByRole('textbox', { name: 'Name', exact: true }).fill('Herons');
      await p.getByRole('textbox', { name: 'Search', exact: true }).fill('heron');
      await p.getByRole('button', { name: 'Save search' }).click();
      await p.getByTestId('saved-search').filter({ hasText: 'Herons' }).waitFor();

      await p.getByRole('textbox', { name: 'URL', exact: true }).fill(`http://127.0.0.1:${(target.address() as AddressInfo).port}/hook`);
      await p.getByLabel('Only posts matching (optional)').fill('heron');
      await p.getByRole('button', { name: 'Add webhook' }).click();
      const secret = await p.getByTestId('new-secret').inputValue();
      assert.match(secret, /^whsec_/);
      await p.getByRole('button', { name: 'Done' }).click();
      assert.equal(await p.getByTestId('new-secret').count(), 0, 'the secret is shown once');
      await p.getByTestId('webhook').filter({ hasText: '/hook' }).waitFor();
      await screenshot(p, 'live-settings');

      const heron = await post(['heron', 'lake'], 'grey heron');
      await post(['duck'], 'a duck');
      // The header counts it once the board's round has put it in the feed.
      const badge = p.getByTestId('feed-count');
      await badge.waitFor({ timeout: 15_000 });
      assert.match((await badge.textContent()) ?? '', /^1\s*new$/);
      await p.getByTestId('feed-link').click();
      await p.locator(`a[href="/posts/${heron}"]`).waitFor();
      assert.match(await p.getByTestId('feed-total').innerText(), /1 post, 1 new/);
      await p.getByTestId('feed-count').waitFor({ state: 'detached' });
      // The webhook got the same post.
      for (let i = 0; i < 100 && got.length === 0; i++) await p.waitForTimeout(100);
      assert.equal(JSON.parse(got[0]).data.id, String(heron));
      assert.deepEqual(member.errors, []);
      await member.context.close();
    } finally {
      await new Promise<void>((r) => target.close(() => r()));
    }
  });
});
