#!/usr/bin/env node
// Runs every *.test.ts under src/ and test/ with Node's test runner. Node 20 neither expands
// globs nor finds .ts files itself, so the files are listed here; a run that finds none fails.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const only = process.argv.slice(2);

function find(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true })
    .map((f) => path.join(dir, String(f)))
    .filter((f) => f.endsWith('.test.ts') && !f.includes('node_modules'));
}

let files = [...find(path.join(root, 'src')), ...find(path.join(root, 'test'))].sort();
// Matched against the path inside the repository: a checkout under /work/docs must not make `docs` match every file.
if (only.length) files = files.filter((f) => only.some((o) => path.relative(root, f).includes(o)));
// Fleet modes (TEST_FLEET=2x2 or 2, and procs; docs/architecture.md "Tests in fleet mode"): only
// the suites whose behaviour depends on several instances, each saying why where it is declared:
// eachDatabase({ title, fleet: 'why' }, ...) (FleetSuite, test/helpers.ts). Read from the file's
// text, so a file is picked wherever it moves; every other suite would repeat npm test's
// PostgreSQL pass behind more apps, and is left to it.
const fleet = process.env.TEST_FLEET;
if (fleet) {
  if (!process.env.TEST_DATABASE_URL || !process.env.REDIS_URL) {
    console.error('TEST_FLEET needs TEST_DATABASE_URL and REDIS_URL: the instances share one PostgreSQL schema and Redis');
    process.exit(1);
  }
  const all = files.length;
  const why = new Map(files.map((f) => [f, fleetReasons(fs.readFileSync(f, 'utf8'))]).filter(([, reasons]) => reasons.length > 0));
  const unmarked = files.filter((f) => !why.has(f) && /\beachDatabase\(/.test(fs.readFileSync(f, 'utf8')));
  files = [...why.keys()];
  const procs = fleet.trim() === 'procs';
  const leftOut = procs ? procsLeftOut(files) : new Map();
  files = files.filter((f) => !leftOut.has(f));
  console.log(
    procs
      ? `# Fleet mode with processes: ${files.length} of ${all} files, their suites that depend on several instances, PostgreSQL pass only (\`npm test\` runs the SQLite passes and the rest), each suite behind two server processes of WORKERS=2 started as \`npm start\` does, with their own DATA_DIR, media in s3rver, counters in Redis, reached through one round-robin TCP proxy`
      : `# Fleet mode ${fleet}: ${files.length} of ${all} files, their suites that depend on several instances, PostgreSQL pass only (a SQLite file cannot be shared by instances with separate DATA_DIRs; \`npm test\` runs the SQLite passes and the rest), each suite behind a fleet of apps with their own connection and DATA_DIR, media in s3rver, counters in Redis`,
  );
  for (const f of files) console.log(`# runs ${path.relative(root, f)}: ${why.get(f).join('; ')}`);
  for (const [f, reason] of leftOut) console.log(`# Fleet mode with processes: left out ${path.relative(root, f)}: ${reason}`);
  console.log(
    `# not run, no suite declared as a FleetSuite (nothing they test depends on several instances): ${unmarked.length} files with database suites (${unmarked.map((f) => path.relative(root, f)).join(', ')}) and ${all - why.size - unmarked.length} without`,
  );
}

/** Why each FleetSuite of a file depends on several instances: the string literals given as `fleet:`, once each. */
function fleetReasons(text) {
  return [...new Set([...text.matchAll(/\bfleet:\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g)].map((m) => m[2]))];
}

/**
 * The files that cannot run against server processes, each with why. A file that marks such tests
 * with testUnlessProcs (test/helpers.ts) has said which of its tests cannot, and runs.
 */
function procsLeftOut(candidates) {
  const reasons = [
    [/ctx\.config(\.\w+)+ = /, 'its tests change settings while the app runs; server processes read them at start'],
    [/\bbuildApp\([^)]*\bctx\./, "its tests build apps of their own on the suite's database, in the test process"],
    [/\bmarkingKind\(/, 'its jobs are of kinds the test defines in its own process, which the server processes do not know'],
  ];
  const out = new Map();
  for (const f of candidates) {
    const text = fs.readFileSync(f, 'utf8');
    if (/\btestUnlessProcs\(/.test(text)) continue;
    const why = reasons.filter(([re]) => re.test(text)).map(([, reason]) => reason);
    if (why.length) out.set(f, why.join('; '));
  }
  return out;
}
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
if (!process.env.TEST_DATABASE_URL) {
  console.log('# PostgreSQL pass skipped: TEST_DATABASE_URL is not set (set it to postgres://... to run every suite on PostgreSQL too)');
} else {
  console.log(`# PostgreSQL pass: every database suite also runs against ${process.env.TEST_DATABASE_URL.replace(/\/\/[^@]*@/, '//')}`);
}
if (!process.env.REDIS_URL) {
  console.log('# Redis pass skipped: REDIS_URL is not set (set it to redis://... to test rate limits shared by two instances)');
}
const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
if (!fs.existsSync(chromium)) {
  console.log(`# Browser tests skipped: no Chromium at ${chromium} (apt-get install chromium, or set CHROMIUM_PATH)`);
}
// The real-client test (test/gallery-dl.test.ts) skips without gallery-dl, except in CI, where it fails.
if (spawnSync(process.env.GALLERY_DL_PATH ?? 'gallery-dl', ['--version'], { stdio: 'ignore' }).status !== 0) {
  console.log(
    `# gallery-dl test ${process.env.CI ? 'fails' : 'skipped'}: no ${process.env.GALLERY_DL_PATH ?? 'gallery-dl on PATH'} (apt-get install gallery-dl, or set GALLERY_DL_PATH)`,
  );
}
// Against server processes a test waiting for something they never do would wait for ever: five minutes is far past any test's time.
const timeout = fleet?.trim() === 'procs' ? ['--test-timeout=300000'] : [];
// On a terminal, Node's own report; elsewhere (CI, a log) the failures, the skips and a line a file
// (scripts/test-reporter.mjs) instead of thousands of lines of TAP. TEST_REPORTER picks another (tap, spec).
const reporter = process.env.TEST_REPORTER ?? (process.stdout.isTTY ? 'spec' : path.join(root, 'scripts', 'test-reporter.mjs'));
const args = [
  '--import',
  'tsx',
  '--test',
  '--test-concurrency=2',
  `--test-reporter=${reporter}`,
  '--test-reporter-destination=stdout',
  ...timeout,
  ...files.map((f) => path.relative(root, f)),
];
const res = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } });
process.exit(res.status ?? 1);
