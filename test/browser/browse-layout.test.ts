// The browse page when it has nothing to show or cannot search: a board with no posts says so and
// points to Upload, where a filtered empty list says nothing matches; a refused search's message
// sits in the page and covers none of it; the Sort field shows a search's order: whole.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { createAccount } from '../../src/modules/users/accounts.ts';
import { createPost } from '../factories.ts';
import { browserSuite, newPage, PHONE, screenshot, signIn, startBoard, type Board } from './harness.ts';

const PASSWORD = 'correct horse battery';
const LAPTOP = { width: 1280, height: 800 };

/** Whether two elements' boxes on screen share any area. */
async function overlap(a: Locator, b: Locator): Promise<boolean> {
  const [x, y] = [await a.boundingBox(), await b.boundingBox()];
  assert.ok(x && y, 'both are on screen');
  return x.x < y.x + y.width && y.x < x.x + x.width && x.y < y.y + y.height && y.y < x.y + x.height;
}

browserSuite('browser: the browse page empty, refused and ordered by the search', { timeout: 180_000 }, () => {
  let board: Board;
  let uploader: number;
  const errors: string[][] = [];

  const open = async (opts: { member?: boolean; viewport?: { width: number; height: number } } = {}): Promise<Page> => {
    const { page, errors: e } = await newPage(board, { viewport: opts.viewport ?? LAPTOP });
    errors.push(e);
    if (opts.member) await signIn(page, 'mia', PASSWORD);
    return page;
  };

  before(async () => {
    board = await startBoard();
    uploader = (await createAccount(board.app.deps, { username: 'mia', password: PASSWORD })).id;
  });
  after(async () => {
    for (const e of errors) assert.deepEqual(e, []);
    await board?.close();
  });

  it('a board with no posts says there are none yet and links to Upload; a filter that finds nothing says nothing matches', async () => {
    for (const member of [false, true]) {
      const page = await open({ member });
      await page.goto('/');
      const empty = page.locator('.empty');
      await empty.filter({ hasText: 'No posts yet.' }).waitFor();
      assert.equal(await empty.getByRole('link', { name: 'Upload' }).getAttribute('href'), '/upload');
      assert.doesNotMatch(await empty.innerText(), /match|fewer tags/);
      if (!member) await screenshot(page, 'browse-empty-board');
      await page.goto('/?tag=harbour');
      await empty.filter({ hasText: 'No posts match.' }).waitFor();
      assert.equal(await empty.getByRole('link', { name: 'Upload' }).count(), 0);
      await page.close();
    }
    // A board whose only post a visitor's safe-only view leaves out is not empty.
    await createPost(board.app.deps.db, { uploaderId: uploader, title: 'Night swim', tags: ['harbour'], rating: 'unsafe', createdAt: Date.now() - 60_000 });
    const visitor = await open();
    await visitor.goto('/');
    await visitor.locator('.empty').filter({ hasText: 'No posts match.' }).waitFor();
    assert.doesNotMatch(await visitor.locator('.empty').innerText(), /No posts yet/);
    await visitor.close();
  });

  it("a refused search's message stands in the page, covering neither the heading, the filters nor the sidebar", async () => {
    for (let i = 0; i < 6; i++)
      await createPost(board.app.deps.db, { uploaderId: uploader, title: `Boat ${i}`, tags: ['harbour', `boat_${i}`], createdAt: Date.now() - i * 1000 });
    for (const member of [false, true]) {
      const page = await open({ member });
      await page.goto('/');
      const box = page.getByRole('combobox', { name: 'Search posts' });
      // A long message: the values order: takes.
      await box.fill('harbour order:most_favorited');
      await box.press('Enter');
      const note = page.locator('#search-q-error');
      await note.filter({ hasText: "'most_favorited' is not an order" }).waitFor();
      // The header's box learns of the fault a render after the page shows it: wait for it, not read it once.
      await page.locator('input[aria-describedby="search-q-error"]').waitFor();
      assert.equal(await box.getAttribute('aria-describedby'), 'search-q-error');
      await page.getByRole('heading', { name: 'Popular tags' }).waitFor();
      for (const other of [page.locator('main h1'), page.getByRole('form', { name: 'Filters' }), ...(await page.locator('.browse-side h2').all())]) {
        assert.equal(await overlap(note, other), false, `the message covers ${await other.innerText()}`);
      }
      if (member) await screenshot(page, 'search-error-laptop');
      await page.close();
    }
  });

  it("shows a search's order: whole in the Sort field, on a laptop and on a phone", async () => {
    for (const viewport of [LAPTOP, PHONE]) {
      const page = await open({ viewport });
      await page.goto(`/?q=${encodeURIComponent('harbour order:favs')}`);
      await page.getByTestId('total').waitFor();
      if (viewport === PHONE) await page.getByText('Filters', { exact: true }).click();
      const sort = page.getByLabel('Sort');
      assert.equal(await sort.isDisabled(), true);
      const fit = await sort.evaluate((el: HTMLSelectElement) => {
        const s = getComputedStyle(el);
        const ctx = document.createElement('canvas').getContext('2d')!;
        ctx.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
        const text = el.options[el.selectedIndex].text;
        // The text, the padding and room for the drop-down arrow must fit inside the field.
        return {
          text,
          need: Math.ceil(ctx.measureText(text).width + Number.parseFloat(s.paddingLeft) + Number.parseFloat(s.paddingRight) + 16),
          have: el.clientWidth,
        };
      });
      assert.equal(fit.text, 'By the search: order:favs');
      assert.ok(fit.need <= fit.have, `"${fit.text}" needs ${fit.need} px, the field has ${fit.have}`);
      if (viewport === LAPTOP) await screenshot(page, 'browse-sort-by-search');
      await page.close();
    }
  });
});
