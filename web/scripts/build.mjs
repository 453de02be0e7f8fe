#!/usr/bin/env node
// Builds web/ into web/dist when dist is missing or older than any source file (the `prestart`
// step, and the browser tests' first step). `--force` always builds. Concurrent callers (test
// files run two at a time) take turns through a lock directory, and the second finds it fresh.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST_INDEX = path.join(WEB, 'dist', 'index.html');
const LOCK = path.join(WEB, '.build-lock');
const SOURCES = ['src', 'public', 'index.html', 'vite.config.ts'];

function newestSource() {
  let newest = 0;
  const visit = (p) => {
    if (!fs.existsSync(p)) return;
    const st = fs.statSync(p);
    if (st.isDirectory()) for (const f of fs.readdirSync(p)) visit(path.join(p, f));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const s of SOURCES) visit(path.join(WEB, s));
  return newest;
}

export function isStale() {
  if (!fs.existsSync(DIST_INDEX)) return true;
  return fs.statSync(DIST_INDEX).mtimeMs < newestSource();
}

async function withLock(fn) {
  const started = Date.now();
  for (;;) {
    try {
      fs.mkdirSync(LOCK);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      // A lock left by a build that died long ago is taken over.
      if (Date.now() - fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs > 5 * 60_000) fs.rmSync(LOCK, { recursive: true, force: true });
      if (Date.now() - started > 10 * 60_000) throw new Error(`web build: ${LOCK} is held for too long`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Builds when stale (or always with force). Returns true when it built. */
export async function buildWeb({ force = false, quiet = false } = {}) {
  if (!force && !isStale()) return false;
  return withLock(async () => {
    if (!force && !isStale()) return false;
    let vite;
    try {
      vite = await import('vite');
    } catch {
      if (fs.existsSync(DIST_INDEX)) return false;
      console.warn('web: vite is not installed (npm install without --omit=dev builds the front-end); serving the API only');
      return false;
    }
    await vite.build({ configFile: path.join(WEB, 'vite.config.ts'), root: WEB, logLevel: quiet ? 'warn' : 'info' });
    // Touch the marker so a build that emitted identical files still counts as fresh.
    const now = new Date();
    fs.utimesSync(DIST_INDEX, now, now);
    return true;
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const force = process.argv.includes('--force');
  buildWeb({ force }).then(
    (built) => { if (!built) console.log('web: web/dist is up to date'); },
    (err) => { console.error(err); process.exit(1); },
  );
}
