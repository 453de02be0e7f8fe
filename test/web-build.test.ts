import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildWeb, report } from '../web/scripts/build.mjs';

// A production install (`npm ci --omit=dev`) has no vite: its build (`npm run build`) must then say plainly that
// there are no pages and how to get them, not that the front-end is up to date.

const noVite = () => Promise.reject(Object.assign(new Error("Cannot find package 'vite'"), { code: 'ERR_MODULE_NOT_FOUND' }));

function webDir(withBuild: boolean): string {
  const web = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-web-'));
  fs.mkdirSync(path.join(web, 'src'));
  fs.writeFileSync(path.join(web, 'src', 'main.tsx'), 'export {};\n');
  if (withBuild) {
    fs.mkdirSync(path.join(web, 'dist'));
    fs.writeFileSync(path.join(web, 'dist', 'index.html'), '<!doctype html>');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(web, 'dist', 'index.html'), old, old);
  }
  return web;
}

test('without vite and without web/dist, the build says loudly that only the API is served and how to fix it', async () => {
  const web = webDir(false);
  const result = await buildWeb({ web, loadVite: noVite });
  assert.equal(result, 'missing');
  const { stream, text } = report(result);
  assert.equal(stream, 'stderr');
  assert.doesNotMatch(text, /up to date/);
  assert.match(text, /API only/);
  assert.match(text, /npm ci && npm run web:build/);
  fs.rmSync(web, { recursive: true, force: true });
});

test('without vite and with an older web/dist, the build warns that the old pages are served', async () => {
  const web = webDir(true);
  const result = await buildWeb({ web, loadVite: noVite });
  assert.equal(result, 'stale');
  assert.equal(report(result).stream, 'stderr');
  assert.doesNotMatch(report(result).text, /up to date/);
  fs.rmSync(web, { recursive: true, force: true });
});
