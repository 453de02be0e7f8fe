// The search box and the query language (issue 21), over seeded data: a query built with the
// keyboard from suggestions (metatag names, their values, tags with a leading -), its results;
// order: taking over the Sort control; a broken query's message and marked place; the help page.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { browserSuite, newPage, screenshot, startBoard, type Board } from './harness.ts';

const json = async (board: Board, path: string) => (await fetch(board.url + path)).json() as Promise<any>;

/** Moves through the open list with ArrowDown until the active option starts with `text`, then takes it with `key`. */
async function pick(box: Locator, page: Page, text: string, key: 'Enter' | 'Tab' = 'Enter'): Promise<void> {
  await page.getByRole('option', { name: new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`) }).waitFor();
  for (let i = 0; i < 12; i++) {
    await box.press('ArrowDown');
    const id = await box.getAttribute('aria-activedescendant');
    assert.ok(id, 'the input names the active option');
    const option = page.locator(`#${id}`);
    assert.equal(await option.getAttribute('aria-selected'), 'true');
    if ((await option.locator('.tag-name').innerText()) === text) {
      await box.press(key);
      return;
    }
  }
  assert.fail(`no option ${text}`);
}

browserSuite('browser: the search language', { timeout: 240_000 }, () => {
  let board: Board;
  let page: Page;
  let errors: string[];
  let tags: string[];
  before(async () => {
    board = await startBoard({ seedPosts: 60 });
    ({ page, errors } = await newPage(board));
    // The two most used tags of the seed: both have safe posts.
    tags = (await json(board, '/api/tags?limit=2')).tags.map((t: any) => t.name);
  });
  after(async () => {
    await board?.close();
  });

  it('builds a query from suggestions with the keyboard, and shows its results', async () => {
    await page.goto('/');
    const box = page.getByRole('combobox', { name: 'Search posts' });
    await box.pressSequentially('ra');
    await pick(box, page, 'rating:');
    assert.equal(await box.inputValue(), 'rating:');
    // The metatag's values follow at once.
    await pick(box, page, 'rating:safe', 'Tab');
    assert.equal(await box.inputValue(), 'rating:safe ');
    await box.pressSequentially(tags[0].slice(0, 3));
    await pick(box, page, tags[0]);
    await box.pressSequentially(`-${tags[1].slice(0, 3)}`);
    await pick(box, page, tags[1]);
    const q = `rating:safe ${tags[0]} -${tags[1]} `;
    assert.equal(await box.inputValue(), q);
    // Escape closes the list; Enter with no option chosen searches.
    await box.pressSequentially(tags[0].slice(0, 2));
    await page.getByRole('option').first().waitFor();
    assert.equal(await box.getAttribute('aria-expanded'), 'true');
    await box.press('Escape');
    assert.equal(await box.getAttribute('aria-expanded'), 'false');
    await box.press('Backspace');
    await box.press('Backspace');
    assert.equal(await box.inputValue(), q);
    await box.press('Enter');
    await page.waitForURL((u) => u.searchParams.get('q') === q.trim());
    const expected = (await json(board, `/api/posts?q=${encodeURIComponent(q.trim())}&contentRating=safe&limit=1`)).totalPosts;
    assert.ok(expected > 0, 'the seed has such posts');
    await page
      .getByTestId('total')
      .filter({ hasText: new RegExp(`^${expected} posts?$`) })
      .waitFor();
    assert.equal(await page.locator('.tile').count(), Math.min(48, expected));
    await screenshot(page, 'search-results');
    // A shared link shows the same query in the box.
    const { page: other, context } = await newPage(board);
    await other.goto(page.url());
    assert.equal(await other.getByRole('combobox', { name: 'Search posts' }).inputValue(), q.trim());
    await context.close();
  });

  it('lets order: in the query decide the sort, sends no sortBy beside it, and keeps a random order still', async () => {
    const asked: string[] = [];
    const listen = (r: { url(): string }) => {
      if (new URL(r.url()).pathname === '/api/posts') asked.push(r.url());
    };
    page.on('request', listen);
    await page.goto(`/?rating=all&sort=oldest&q=${encodeURIComponent('order:likes')}`);
    await page.locator('.tile').first().waitFor();
    const sort = page.getByLabel('Sort');
    assert.ok(await sort.isDisabled());
    assert.match(await sort.locator('option:checked').innerText(), /order:likes/);
    assert.ok(asked.length > 0 && asked.every((u) => !new URL(u).searchParams.has('sortBy')), asked.join(' '));
    const likes = await page.locator('.tile a').evaluateAll((as) => as.map((a) => Number(/(\d+) likes/.exec(a.getAttribute('aria-label') ?? '')?.[1])));
    assert.ok(
      likes.every((n, i) => i === 0 || n <= likes[i - 1]),
      `most liked first: ${likes}`,
    );
    // order:random gets a seed in the URL, so the pages and the post page's neighbours agree.
    await page.goto(`/?rating=all&q=${encodeURIComponent('order:random')}`);
    await page.waitForURL((u) => /^\d+$/.test(u.searchParams.get('seed') ?? ''));
    await page.locator('.tile').first().waitFor();
    assert.ok(asked.some((u) => new URL(u).searchParams.get('seed') === new URL(page.url()).searchParams.get('seed')));
    const second = await page.locator('.tile').nth(1).getAttribute('data-post-id');
    await page.locator('.tile a').first().click();
    await page.locator('a[rel=next]').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.waitForURL(new RegExp(`/posts/${second}$`));
    page.off('request', listen);
  });

  it('shows a broken query’s message in the page, marks the place, and puts the cursor there', async () => {
    const broken = `${tags[0]} (sky or`;
    const answer = await fetch(`${board.url}/api/posts?q=${encodeURIComponent(broken)}`);
    assert.equal(answer.status, 400);
    const detail = (await answer.json()).details.find((d: any) => d.field === 'q');
    await page.goto('/');
    const box = page.getByRole('combobox', { name: 'Search posts' });
    await box.fill(broken);
    await box.press('Enter');
    const fault = page.locator('#search-q-error');
    await fault.filter({ hasText: detail.message }).waitFor();
    assert.equal(await fault.getAttribute('role'), 'alert');
    // The header's box learns of the fault a render after the page shows it: wait for it, not read it once.
    await page.locator('input[aria-describedby="search-q-error"]').waitFor();
    assert.equal(await box.getAttribute('aria-invalid'), 'true');
    assert.equal(await box.getAttribute('aria-describedby'), 'search-q-error');
    const text = page.getByTestId('query-fault-text');
    assert.equal(await text.innerText(), broken.length > detail.position ? broken : `${broken} `);
    assert.equal(await text.locator('mark').innerText(), broken[detail.position] ?? ' ');
    assert.match(await fault.innerText(), new RegExp(`character ${detail.position + 1}`));
    assert.ok(await page.getByTestId('query-refused').isVisible());
    await screenshot(page, 'search-error');
    // Back in the box from the keyboard, the cursor stands at the error.
    await box.evaluate((el: HTMLInputElement) => el.blur());
    await box.focus();
    assert.equal(await box.evaluate((el: HTMLInputElement) => el.selectionStart), detail.position);
    // Editing the text lifts the mark from the box; a good search clears the message.
    await box.press('End');
    await box.pressSequentially(' sea)');
    assert.equal(await box.getAttribute('aria-invalid'), null);
    await box.press('Escape');
    await box.press('Enter');
    await page.waitForURL((u) => u.searchParams.get('q') === `${broken} sea)`);
    await page.getByTestId('total').waitFor();
    assert.equal(await fault.count(), 0);
  });

  it('links the syntax help from the box, whose examples run', async () => {
    await page.getByRole('link', { name: 'Search syntax help' }).click();
    await page.getByRole('heading', { level: 1, name: 'Search syntax' }).waitFor();
    assert.ok(await page.getByRole('cell', { name: 'rating:', exact: true }).isVisible());
    await screenshot(page, 'search-help', true);
    await page.getByRole('link', { name: 'cat or dog', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/' && u.searchParams.get('q') === 'cat or dog');
    // The box takes the address's query once the page has drawn (an effect), not with the address.
    const box = page.getByRole('combobox', { name: 'Search posts' });
    await page
      .waitForFunction(() => (document.getElementById('search-q') as HTMLInputElement | null)?.value === 'cat or dog', undefined, { timeout: 5000 })
      .catch(() => {});
    assert.equal(await box.inputValue(), 'cat or dog');
    await page.getByTestId('total').waitFor();
    assert.deepEqual(errors, []);
  });
});
