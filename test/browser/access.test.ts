// How the board looks and behaves for different people: at phone width, in dark mode, by
// keyboard with labelled controls, and when the server says "too many requests" (429).
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSuite, newPage, PHONE, screenshot, startBoard, type Board } from './harness.ts';

browserSuite('browser: phone, dark mode, keyboard, rate limits', { timeout: 240_000 }, () => {
  let board: Board;
  let page: Page;
  let errors: string[];
  before(async () => {
    board = await startBoard({ seedPosts: 60 });
    ({ page, errors } = await newPage(board));
  });
  after(async () => {
    await board?.close();
  });

  it('steps through 40 posts with the arrow keys on a few requests: no 429, nothing asked twice', async (t) => {
    const { page: viewer, context } = await newPage(board);
    await viewer.goto('/?rating=all');
    await viewer.locator('.tile a').first().click();
    await viewer.locator('.post-title').waitFor();
    const asked: string[] = [];
    const statuses: number[] = [];
    viewer.on('request', (r) => {
      const url = new URL(r.url());
      if (url.pathname.startsWith('/api/')) asked.push(url.pathname + url.search);
    });
    viewer.on('response', (r) => statuses.push(r.status()));
    const STEPS = 40;
    const seen = new Set<string>();
    for (let step = 0; step < STEPS; step++) {
      const before = viewer.url();
      seen.add(before);
      // The page offers the next post before the key goes (a key with nowhere to go does nothing).
      await viewer.locator('a[rel="next"]').waitFor();
      await viewer.keyboard.press('ArrowRight');
      await viewer.waitForURL((u) => u.href !== before);
      await viewer.locator('.post-title').waitFor();
      await viewer.waitForTimeout(100);
    }
    assert.equal(seen.size, STEPS, 'each step showed another post');
    assert.ok(!statuses.includes(429), `no 429: ${statuses.join(',')}`);
    const route = (u: string) => u.split('?')[0].replace(/\/\d+(?=\/|$)/g, '/:id');
    const perRoute = new Map<string, number>();
    for (const u of asked) perRoute.set(route(u), (perRoute.get(route(u)) ?? 0) + 1);
    for (const [r, n] of perRoute) assert.ok(n <= STEPS / 3, `${r}: ${n} requests for ${STEPS} steps (${asked.join(' ')})`);
    assert.equal(new Set(asked).size, asked.length, `nothing asked twice: ${asked.join(' ')}`);
    t.diagnostic(`${STEPS} steps: ${[...perRoute].map(([r, n]) => `${r} ${n}`).join(', ')}`);
    await context.close();
  });

  it('fits a phone: browse and post pages, no sideways scrolling', async () => {
    const { page: phone, context } = await newPage(board, { viewport: PHONE });
    await phone.goto('/?rating=all');
    await phone.locator('.tile img').first().waitFor();
    const wide = await phone.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= PHONE.width, `page is ${wide}px wide`);
    const tiles = await phone.locator('.tile').evaluateAll((ts) => ts.slice(0, 6).map((t) => t.getBoundingClientRect().right));
    assert.ok(
      tiles.every((r) => r <= PHONE.width),
      'tiles stay on screen',
    );
    await screenshot(phone, 'browse-phone');
    await phone.locator('.tile a').first().click();
    await phone.locator('.post-title').waitFor();
    assert.ok((await phone.evaluate(() => document.documentElement.scrollWidth)) <= PHONE.width);
    await screenshot(phone, 'post-phone');
    await context.close();
  });

  it('follows the dark colour scheme', async () => {
    const { page: dark, context } = await newPage(board, { colorScheme: 'dark' });
    await dark.goto('/?rating=all');
    await dark.locator('.tile img').first().waitFor();
    const bg = await dark.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const [r, g, b] = bg.match(/\d+/g)!.map(Number);
    assert.ok(r + g + b < 120, `dark background: ${bg}`);
    await screenshot(dark, 'browse-dark');
    await dark.locator('.tile a').nth(1).click();
    await dark.locator('.post-title').waitFor();
    await screenshot(dark, 'post-dark');
    await context.close();
  });

  it('can be used by keyboard, with visible focus and labelled controls', async () => {
    await page.goto('/?rating=all');
    await page.locator('.tile img').first().waitFor();
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Skip to content');
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'main');
    // Tab onward until a thumbnail has focus; its outline must show.
    for (let i = 0; i < 20; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(() => !!document.activeElement?.closest('.tile'))) break;
    }
    const outline = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      return el.closest('.tile') ? getComputedStyle(el).outlineStyle : 'no tile focused';
    });
    assert.equal(outline, 'solid');
    await page.keyboard.press('Enter');
    await page.locator('.post-title').waitFor();
    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll('input, select, textarea, button, img')]
        .filter((el) => {
          if (el instanceof HTMLImageElement) return !el.alt;
          const named = el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || (el as HTMLInputElement).labels?.length;
          return !named && !(el instanceof HTMLButtonElement && (el.textContent ?? '').trim());
        })
        .map((el) => el.outerHTML.slice(0, 80)),
    );
    assert.deepEqual(unlabelled, []);
  });

  it('says how long to wait when the server answers 429', async () => {
    await page.goto('/tags');
    await page.locator('.tags-table tbody tr').first().waitFor();
    // Spend the statistics endpoint's budget (30 a minute per address), then open a page that needs it.
    const codes = await page.evaluate(async () => {
      const out: number[] = [];
      for (let i = 0; i < 32; i++) out.push((await fetch('/api/public/status')).status);
      return out;
    });
    assert.ok(codes.includes(429));
    await page.goto('/');
    const banner = page.getByTestId('rate-limit');
    await banner.waitFor();
    assert.match(await banner.innerText(), /please wait \d+ seconds? before trying again/);
    await page.getByText('Statistics are not available right now.').waitFor();
    await screenshot(page, 'rate-limited');
    assert.deepEqual(errors, []);
  });
});
