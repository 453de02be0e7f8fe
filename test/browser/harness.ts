// What every browser test needs: the front-end built, the real server on a free loopback port
// (buildApp, as `npm start` runs it) over a temp data directory, and Debian's Chromium driven by
// playwright-core. Screenshots go to test-output/screenshots/ (git-ignored).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildApp, type App } from '../../src/app.ts';
import { testConfig, type Config } from '../../src/config.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SCREENSHOTS = path.join(ROOT, 'test-output', 'screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1366, height: 900 };

/** Why the browser tests cannot run here, or null. */
export function chromiumMissing(): string | null {
  try {
    fs.accessSync(CHROMIUM, fs.constants.X_OK);
    return null;
  } catch {
    return `Chromium not found at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`;
  }
}

/** A browser suite, or one skipped test saying why when there is no Chromium. */
export function browserSuite(name: string, options: { timeout: number }, body: () => void): void {
  const missing = chromiumMissing();
  if (missing) test(name, { skip: missing }, () => {});
  else describe(name, options, body);
}

/** Builds web/ when web/dist is missing or older than its sources (a lock keeps two files from racing). */
export function buildWeb(): void {
  execFileSync(process.execPath, [path.join(ROOT, 'web', 'scripts', 'build.mjs')], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'], timeout: 180_000 });
  assert.ok(fs.existsSync(path.join(ROOT, 'web', 'dist', 'index.html')), 'web/dist/index.html was built');
}

/** Fills a data directory with `imageboard seed` (users' password: password123). */
export function seed(dataDir: string, posts: number, seedValue = 7): void {
  execFileSync(process.execPath, [path.join(ROOT, 'bin', 'imageboard.js'), 'seed', '--posts', String(posts), '--seed', String(seedValue)], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 180_000,
  });
}

export interface Board {
  app: App;
  url: string;
  dataDir: string;
  browser: Browser;
  close(): Promise<void>;
}

/** The whole board: build, (optionally) seed, listen on 127.0.0.1:<free port>, launch Chromium. */
export async function startBoard(opts: { seedPosts?: number; config?: Partial<Config> } = {}): Promise<Board> {
  buildWeb();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imageboard-browser-'));
  if (opts.seedPosts) seed(dataDir, opts.seedPosts);
  const app = await buildApp(testConfig({ dataDir, databaseUrl: '', ...opts.config }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  let browser: Browser;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      timeout: 60_000,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  } catch (err) {
    // A listening server would keep the test process alive after the failure.
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    dataDir,
    browser,
    close: async () => {
      await browser.close().catch(() => undefined);
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A fresh browser profile (its own cookies) whose page fails the test on any script error. */
export async function newPage(
  board: Board,
  opts: { viewport?: { width: number; height: number }; colorScheme?: 'light' | 'dark' } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await board.browser.newContext({ baseURL: board.url, viewport: opts.viewport ?? DESKTOP, colorScheme: opts.colorScheme ?? 'light' });
  context.setDefaultTimeout(20_000); // generous: CI runs two test files at once on two cores
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  return { context, page, errors };
}

/** Signs in through the login form and waits until the header names the user. */
export async function signIn(page: Page, username: string, password = 'correct horse battery'): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('summary', { hasText: username }).waitFor();
}

/** A fresh browser profile signed in as `username` through the sign-in page; its script errors go to `errors`. */
export async function signInAs(board: Board, username: string, password: string, errors: string[][]): Promise<Page> {
  const { page, errors: e } = await newPage(board);
  errors.push(e);
  await signIn(page, username, password);
  return page;
}

export async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  // A sticky header would be painted mid-page in a full-page picture of a scrolled page.
  if (fullPage) await page.evaluate(() => window.scrollTo(0, 0));
  // Let lazy thumbnails that are on screen finish, so the picture shows the page as a person sees it.
  await page
    .waitForFunction(() => [...document.images].filter((i) => i.getBoundingClientRect().top < innerHeight).every((i) => i.complete), undefined, {
      timeout: 5_000,
    })
    .catch(() => undefined);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage });
}

/** Drops files on an element as a drag from the desktop would (a DataTransfer with File objects). */
export async function dropFiles(page: Page, selector: string, files: { name: string; mimeType: string; buffer: Buffer }[]): Promise<void> {
  const payload = files.map((f) => ({ name: f.name, type: f.mimeType, data: f.buffer.toString('base64') }));
  const dt = await page.evaluateHandle((list) => {
    const transfer = new DataTransfer();
    for (const f of list) {
      const bytes = Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0));
      transfer.items.add(new File([bytes], f.name, { type: f.type }));
    }
    return transfer;
  }, payload);
  await page.dispatchEvent(selector, 'dragover', { dataTransfer: dt });
  await page.dispatchEvent(selector, 'drop', { dataTransfer: dt });
}
