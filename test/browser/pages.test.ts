// The board as a visitor finds it, over seeded data: deep links, a small browse page, the
// safe-only default, the grid (lazy, sized thumbnails), filters in the URL, pagination that
// keeps its place on Back, the post page (image, similar images, video), tags, pools, statistics.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, it } from 'node:test';
import type { Page } from 'playwright-core';
import { video } from '../media-fixtures.ts';
import { multipart } from '../multipart.ts';
import { browserSuite, newPage, screenshot, startBoard, type Board } from './harness.ts';

const json = async (board: Board, path: string) => (await fetch(board.url + path)).json() as Promise<any>;
const total = async (page: Page) => Number((await page.getByTestId('total').innerText()).replace(/\D/g, ''));

browserSuite('browser: pages over seeded data', { timeout: 300_000 }, () => {
  let board: Board;
  let page: Page;
  let errors: string[];
  let videoId: string;
  before(async () => {
    // Layout and navigation over all 80 posts: the server lists visitors every rating here, and the
    // safe-only view is the front-end's own (safe mode). The server's visitor default: filters.test.ts.
    board = await startBoard({ seedPosts: 80, config: { visitorRatings: ['safe', 'sketchy', 'unsafe'] } });
    ({ page, errors } = await newPage(board));
    // One video, uploaded as a seeded member through the API.
    const uploader = (await json(board, '/api/posts?limit=1')).posts[0].author.username;
    const login = await board.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: uploader, password: 'password123' } });
    assert.equal(login.statusCode, 200, login.body);
    const cookie = login.headers['set-cookie'] as string | string[];
    const body = multipart({ title: 'Test card clip', tags: 'test_clip', contentRating: 'safe' }, [
      { filename: 'clip.mp4', contentType: 'video/mp4', data: video('mp4') },
    ]);
    const up = await board.app.inject({
      method: 'POST',
      url: '/api/upload',
      payload: body.payload,
      headers: {
        ...body.headers,
        cookie: ([] as string[])
          .concat(cookie)
          .map((c) => c.split(';')[0])
          .join('; '),
      },
    });
    assert.equal(up.statusCode, 201, up.body);
    videoId = up.json().post.id;
  });
  after(async () => {
    await board?.close();
  });

  it('loads deep links directly, and /api stays JSON', async () => {
    const post = (await json(board, '/api/posts?limit=1')).posts[0];
    const pool = (await json(board, '/api/pools')).pools[0];
    const links: [string, RegExp][] = [
      [`/posts/${post.id}`, new RegExp(post.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))],
      ['/tags', /^Tags$/],
      [`/users/${post.author.username}`, new RegExp(post.author.username)],
      [`/pools/${pool._id}`, new RegExp(pool.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))],
      ['/upload', /^Upload$/],
      ['/settings', /^Settings$/],
      ['/login', /^Sign in$/],
      ['/no/such/page', /Page not found/],
    ];
    for (const [path, heading] of links) {
      const res = await page.goto(path);
      assert.equal(res?.status(), 200, path);
      assert.match(res?.headers()['content-type'] ?? '', /text\/html/);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    }
    const api = await fetch(`${board.url}/api/no-such-thing`, { headers: { Accept: 'text/html' } });
    assert.equal(api.status, 404);
    assert.equal((await api.json()).status, 404);
  });

  it('loads the browse page with little JavaScript (under 25 KB gzipped, no other page’s code)', async () => {
    const scripts: string[] = [];
    const { page: fresh, context } = await newPage(board);
    fresh.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
    });
    await fresh.goto('/');
    await fresh.locator('.tile img').first().waitFor();
    let raw = 0;
    let gz = 0;
    for (const path of scripts) {
      const body = Buffer.from(await (await fetch(board.url + path)).arrayBuffer());
      raw += body.length;
      gz += gzipSync(body, { level: 9 }).length;
    }
    assert.ok(
      scripts.every((s) => !/\/(post|upload|settings|tags|pools?|user|auth)-/.test(s)),
      scripts.join(', '),
    );
    assert.ok(gz < 25 * 1024, `browse JS is ${gz} bytes gzipped`);
    console.log(`browse page JS: ${scripts.length} files, ${raw} bytes, ${gz} gzipped`);
    await context.close();
  });

  it('shows visitors the safe-only view by default, and lets them change it', async () => {
    await page.goto('/');
    await page.locator('.tile').first().waitFor();
    const safeTotal = (await json(board, '/api/posts?contentRating=safe&limit=1')).totalPosts;
    const allTotal = (await json(board, '/api/posts?limit=1')).totalPosts;
    assert.ok(safeTotal < allTotal, 'the seed has posts not rated safe');
    assert.equal(await total(page), safeTotal);
    assert.equal(await page.locator('.tile .badge-safe').count(), await page.locator('.tile').count());
    assert.ok(await page.getByRole('checkbox', { name: 'Safe only' }).isChecked());
    await page.getByLabel('Rating').selectOption('all');
    await page.waitForURL(/rating=all/);
    await page
      .getByTestId('total')
      .filter({ hasText: String(allTotal) })
      .waitFor();
    await page.getByRole('checkbox', { name: 'Safe only' }).uncheck();
    await page.goto('/');
    await page
      .getByTestId('total')
      .filter({ hasText: String(allTotal) })
      .waitFor();
    await page.getByRole('checkbox', { name: 'Safe only' }).check();
    await page
      .getByTestId('total')
      .filter({ hasText: String(safeTotal) })
      .waitFor();
  });

  it('lazy-loads thumbnails whose size is known before they arrive (within 300 px)', async () => {
    await page.goto('/?rating=all');
    await page.locator('.tile img').first().waitFor();
    const list = (await json(board, '/api/posts?limit=48')).posts as { id: string; width: number; height: number; mediaType: string }[];
    const imgs = await page.locator('.tile').evaluateAll((tiles) =>
      tiles.map((t) => {
        const img = t.querySelector('img')!;
        const box = t.getBoundingClientRect();
        return {
          id: t.getAttribute('data-post-id'),
          loading: img.loading,
          w: Number(img.getAttribute('width')),
          h: Number(img.getAttribute('height')),
          alt: img.alt,
          boxW: box.width,
          boxH: box.height,
          video: !!t.querySelector('.badge-video'),
        };
      }),
    );
    assert.equal(imgs.length, list.length);
    for (const [i, img] of imgs.entries()) {
      const post = list[i];
      assert.equal(img.id, post.id);
      assert.equal(img.loading, 'lazy');
      assert.ok(img.alt.length > 0);
      assert.ok(Math.max(img.w, img.h) <= 300 && img.w > 0 && img.h > 0, `${img.w}x${img.h}`);
      assert.ok(Math.abs(img.w / img.h - post.width / post.height) < 0.02, 'keeps the aspect ratio');
      assert.ok(img.boxH > 40 && Math.abs(img.boxW / img.boxH - img.w / img.h) < 0.05, 'the tile reserves the space');
      assert.equal(img.video, post.mediaType === 'video');
    }
    assert.ok(
      imgs.some((i) => i.video),
      'the video shows its badge',
    );
    await screenshot(page, 'browse');
  });

  it('keeps filters in the URL, so a search can be shared and reloaded', async () => {
    await page.goto('/?rating=all');
    await page.getByLabel('Sort').selectOption('most_liked');
    await page.waitForURL(/sort=most_liked/);
    await page.waitForLoadState('networkidle');
    await page.getByLabel('Min. likes').fill('2');
    await page.getByLabel('Min. likes').press('Enter');
    await page.waitForURL(/likes=2/);
    await page.getByLabel('From', { exact: true }).fill('2020-01-01');
    await page.waitForURL(/from=2020-01-01/);
    await page.getByLabel('To', { exact: true }).fill('2099-12-31');
    await page.waitForURL(/to=2099-12-31/);
    const url = page.url();
    const { page: other, context } = await newPage(board);
    await other.goto(url);
    await other.locator('.tile').first().waitFor();
    assert.equal(await other.getByLabel('Sort').inputValue(), 'most_liked');
    assert.equal(await other.getByLabel('Min. likes').inputValue(), '2');
    assert.equal(await other.getByLabel('From', { exact: true }).inputValue(), '2020-01-01');
    assert.equal(await other.getByLabel('Rating').inputValue(), 'all');
    assert.equal(await other.getByLabel('To', { exact: true }).inputValue(), '2099-12-31');
    const expected = (await json(board, '/api/posts?sortBy=most_liked&minLikes=2&dateFrom=2020-01-01&dateTo=2099-12-31&limit=1')).totalPosts;
    assert.equal(await total(other), expected);
    const likes = await other.locator('.tile a').evaluateAll((as) => as.map((a) => Number(/(\d+) likes/.exec(a.getAttribute('aria-label') ?? '')?.[1])));
    assert.ok(likes.every((n) => n >= 2) && likes.every((n, i) => i === 0 || n <= likes[i - 1]), 'most liked first, none under 2');
    await context.close();
  });

  it('keeps its page and scroll position on Back', async () => {
    await page.goto('/?rating=all');
    await page.getByRole('link', { name: 'Next ›' }).click();
    await page.waitForURL(/page=2/);
    const last = page.locator('.tile').last();
    await last.scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    const id = await last.getAttribute('data-post-id');
    const y = await page.evaluate(() => window.scrollY);
    assert.ok(y > 200, 'scrolled down');
    await last.locator('a').click();
    await page.waitForURL(new RegExp(`/posts/${id}$`));
    await page.locator('.post-title').waitFor();
    await page.goBack();
    await page.waitForURL(/page=2/);
    await page.waitForFunction((want) => Math.abs(window.scrollY - want) < 30, y);
    assert.ok(await page.locator(`.tile[data-post-id="${id}"]`).isVisible());
  });

  it('shows a post: fitted image with full size on click, similar images, and the video player', async () => {
    // The seed repeats pictures, so some post has look-alikes.
    let post: any;
    let similar: string[] = [];
    for (const p of (await json(board, '/api/posts?limit=30&contentRating=safe')).posts) {
      const found = (await json(board, `/api/posts/${p.id}/similar?limit=12`)).posts.filter((x: any) => x.contentRating === 'safe');
      if (p.mediaType === 'image' && found.length) {
        post = p;
        similar = found.map((x: any) => x.id);
        break;
      }
    }
    assert.ok(post, 'a seeded post with similar images');
    await page.goto(`/posts/${post.id}`);
    const shown = page.getByRole('list', { name: 'Similar images' }).locator('.tile');
    await shown.first().waitFor();
    const ids = await shown.evaluateAll((ts) => ts.map((t) => t.getAttribute('data-post-id')));
    assert.deepEqual(
      ids.filter((id) => similar.includes(id!)),
      similar,
    );
    const toggle = page.getByRole('button', { name: /Show the image at full size/ });
    await toggle.click();
    await page.getByRole('button', { name: 'Fit the image to the screen' }).waitFor();
    assert.equal(await page.locator('.media img').getAttribute('src'), post.imageUrl);
    await page.goto(`/posts/${videoId}`);
    const player = page.locator('video[controls]');
    await player.waitFor();
    assert.match((await player.locator('source').getAttribute('src')) ?? '', /^\/media\/.+\.mp4$/);
    await page.getByRole('heading', { name: 'Test card clip' }).waitFor();
  });

  it('has a tags page with search, sort and time range in the URL', async () => {
    await page.goto('/tags');
    await page.locator('.tags-table tbody tr').first().waitFor();
    await page.getByLabel('Sort').selectOption('alphabetical');
    await page.waitForURL(/sort=alphabetical/);
    await page.waitForFunction(() => {
      const names = [...document.querySelectorAll('.tags-table tbody td:first-child')].map((td) => td.textContent ?? '');
      return names.length > 1 && names.every((n, i) => i === 0 || names[i - 1].localeCompare(n) <= 0);
    });
    await page.getByLabel('Posts from').selectOption('year');
    await page.waitForURL(/range=year/);
    await page.getByLabel('Find a tag').fill('test_cl');
    await page.waitForURL(/search=test_cl/);
    await page.waitForFunction(() => {
      const rows = document.querySelectorAll('.tags-table tbody tr');
      return rows.length === 1 && rows[0].textContent?.includes('test_clip');
    });
    await page.getByLabel('Find a tag').fill('');
    await page.locator('.tags-table tbody tr').nth(5).waitFor();
    await screenshot(page, 'tags');
  });

  it('lists pools and shows a pool’s posts in order', async () => {
    await page.goto('/pools');
    const first = page.locator('.pool-card h2 a').first();
    const name = await first.innerText();
    await first.click();
    await page.getByRole('heading', { level: 1, name }).waitFor();
    const pool = await json(board, new URL(page.url()).pathname.replace('/pools', '/api/pools'));
    const tileIds = () => page.locator('.tile').evaluateAll((ts) => ts.map((t) => t.getAttribute('data-post-id')));
    // A visitor in safe mode sees the safe ones, in order, and can show the rest.
    assert.deepEqual(
      await tileIds(),
      pool.posts.filter((p: any) => p.contentRating === 'safe').map((p: any) => p.id),
    );
    await screenshot(page, 'pool');
    if (pool.posts.some((p: any) => p.contentRating !== 'safe')) await page.getByRole('button', { name: /^Show (it|them)$/ }).click();
    await page.waitForFunction((n) => document.querySelectorAll('.tile').length === n, pool.posts.length);
    assert.deepEqual(
      await tileIds(),
      pool.posts.map((p: any) => p.id),
    );
  });

  it('shows the board statistics from /api/public/status', async () => {
    await page.goto('/');
    const stats = await json(board, '/api/public/status');
    const panel = page.getByTestId('stats');
    await panel.waitFor();
    const text = await panel.innerText();
    assert.match(text, new RegExp(`Posts\\s+${stats.totalPosts}`));
    assert.match(text, new RegExp(`Members\\s+${stats.totalUsers}`));
    assert.match(await page.locator('.server-line').innerText(), new RegExp(`Server ${stats.serverStatus} · version ${stats.version}`));
    assert.deepEqual(errors, []);
  });
});
