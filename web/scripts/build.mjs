#!/usr/bin/env node
// Builds web/ into web/dist when dist is missing or older than any source file (part of
// `npm run build`, and the browser tests' first step). `--force` always builds. Concurrent callers (test
// files run two at a time) take turns through a lock directory, and the second finds it fresh.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SOURCES = ['src', 'public', 'index.html', 'vite.config.ts'];
const distIndex = (web) => path.join(web, 'dist', 'index.html');

function newestSource(web) {
  let newest = 0;
  const visit = (p) => {
    if (!fs.existsSync(p)) return;
    const st = fs.statSync(p);
    if (st.isDirectory()) for (const f of fs.readdirSync(p)) visit(path.join(p, f));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const s of SOURCES) visit(path.join(web, s));
  return newest;
}

export function isStale(web = WEB) {
  if (!fs.existsSync(distIndex(web))) return true;
  return fs.statSync(distIndex(web)).mtimeMs < newestSource(web);
}

async function withLock(lock, fn) {
  const started = Date.now();
  for (;;) {
    try {
      fs.mkdirSync(lock);
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      // A lock left by a build that died long ago is taken over.
      if (Date.now() - fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs > 5 * 60_000) fs.rmSync(lock, { recursive: true, force: true });
      if (Date.now() - started > 10 * 60_000) throw new Error(`web build: ${lock} is held for too long`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await fn();
  } finally {
    fs.rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * Builds when stale (or always with force). Returns 'built', 'fresh' (nothing to do), or, when
 * vite is not installed (a production install, `npm ci --omit=dev`): 'stale' (an older build is
 * kept) or 'missing' (there is no build: the server has no pages to serve).
 */
export async function buildWeb({ force = false, quiet = false, web = WEB, loadVite = () => import('vite') } = {}) {
  if (!force && !isStale(web)) return 'fresh';
  return withLock(path.join(web, '.build-lock'), async () => {
    if (!force && !isStale(web)) return 'fresh';
    let vite;
    try {
      vite = await loadVite();
    } catch {
      return fs.existsSync(distIndex(web)) ? 'stale' : 'missing';
    }
    await vite.build({ configFile: path.join(web, 'vite.config.ts'), root: web, logLevel: quiet ? 'warn' : 'info' });
    // Touch the marker so a build that emitted identical files still counts as fresh.
    const now = new Date();
    fs.utimesSync(distIndex(web), now, now);
    return 'built';
  });
}

const HOW_TO_BUILD =
  'Build it where the dev dependencies are installed: `npm ci && npm run web:build`, then `npm prune --omit=dev` if you want them gone (see "Production install" in README.md).';

/** What the command line says about a result: a line on stdout, or a warning on stderr. */
export function report(result) {
  switch (result) {
    case 'built':
      return { stream: 'stdout', text: 'web: built web/dist' };
    case 'fresh':
      return { stream: 'stdout', text: 'web: web/dist is up to date' };
    case 'stale':
      return {
        stream: 'stderr',
        text: `web: WARNING: web/dist is older than web/src, and vite (a dev dependency) is not installed to rebuild it; serving the old pages.\n${HOW_TO_BUILD}`,
      };
    default:
      return {
        stream: 'stderr',
        text: `web: WARNING: there is no web front-end build (web/dist), and vite (a dev dependency) is not installed to make one: the server will answer the API only, with no pages at /.\n${HOW_TO_BUILD}`,
      };
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const force = process.argv.includes('--force');
  buildWeb({ force }).then(
    (result) => {
      const { stream, text } = report(result);
      if (stream === 'stdout') console.log(text);
      else console.error(`\n${'!'.repeat(80)}\n${text}\n${'!'.repeat(80)}\n`);
      // An explicit build (npm run web:build) that could not build fails; npm run build goes on with the API.
      if (force && result !== 'built') process.exit(1);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
