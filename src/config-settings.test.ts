import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { renderSettingsDoc } from './config-doc.ts';
import { SETTINGS } from './config-settings.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
/** Files outside src/ that read a listed setting themselves. */
const OUTSIDE = ['scripts/start.sh', 'scripts/build-native.mjs'];

/** The server's and command line's sources: every .ts under src/ but tests (their variables drive the test run, not a board). */
function sources(): Map<string, string> {
  const files = fs
    .readdirSync(SRC, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
  return new Map(files.map((f) => [`src/${f}`, fs.readFileSync(path.join(SRC, f), 'utf8')]));
}

const NAME = '[A-Z][A-Z0-9_]*';
const READS = [
  new RegExp(`\\benv\\.(${NAME})\\b`, 'g'), // process.env.X, io.env.X, env.X
  new RegExp(`\\benv\\[\\s*['"\`](${NAME})['"\`]\\s*\\]`, 'g'), // env['X']
  new RegExp(`\\(\\s*(?:process\\.|io\\.)?env\\s*,\\s*['"\`](${NAME})['"\`]`, 'g'), // int(env, 'X', ...)
  new RegExp(`\\b(?:read\\.(?:int|isAuto|bool|choice|list|url|text)|settingOf)\\(\\s*['"\`](${NAME})['"\`]`, 'g'), // read.int('X'), settingOf('X')
];

/**
 * The environment variables a source reads, by name. `env[SOME_CONST]` is looked up in `constants`
 * (`SOME_CONST = 'X'` anywhere in the sources); one that cannot be is reported as `?SOME_CONST`.
 */
export function envReads(text: string, constants: string = text): string[] {
  const found = new Set<string>();
  for (const re of READS) for (const m of text.matchAll(re)) found.add(m[1]);
  for (const m of text.matchAll(new RegExp(`\\benv\\[(${NAME})\\]`, 'g'))) {
    const value = constants.match(new RegExp(`\\b${m[1]}\\s*=\\s*['"\`](${NAME})['"\`]`));
    found.add(value ? value[1] : `?${m[1]}`);
  }
  for (const m of text.matchAll(/\{([^{}]*)\}\s*=\s*(?:process\.|io\.)?env\b/g)) {
    for (const part of m[1].split(',')) {
      const name = part.split(':')[0].trim();
      if (new RegExp(`^${NAME}$`).test(name)) found.add(name);
    }
  }
  return [...found].sort();
}

test('docs/settings.md is what the list of settings renders', () => {
  const file = path.join(ROOT, 'docs', 'settings.md');
  const written = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  assert.ok(
    written === renderSettingsDoc(),
    'docs/settings.md differs from src/config-settings.ts: run `npm run docs:settings` (and edit the list, not the page)',
  );
});

test('every environment variable read under src/ has an entry in the list of settings', () => {
  const files = sources();
  const all = [...files.values()].join('\n');
  const listed = new Set<string>(SETTINGS.map((s) => s.name));
  const missing: string[] = [];
  const read = new Set<string>();
  for (const [file, text] of files) {
    for (const name of envReads(text, all)) {
      read.add(name);
      if (!listed.has(name)) missing.push(`${file}: ${name}`);
    }
  }
  assert.deepEqual(missing, [], 'add these to SETTINGS in src/config-settings.ts, then run `npm run docs:settings`');
  // The scan sees each way a setting is read: through config.ts, raw in a command.
  for (const name of ['PORT', 'WORKERS', 'VISITOR_RATINGS', 'IMPORT_NICE', 'NODE_ENV']) {
    assert.ok(read.has(name), `the scan finds ${name}`);
  }
});

test('every entry of the list is read somewhere, once each', () => {
  const text = [...sources()].filter(([f]) => f !== 'src/config-settings.ts' && f !== 'src/config-doc.ts').map(([, t]) => t);
  text.push(...OUTSIDE.map((f) => fs.readFileSync(path.join(ROOT, f), 'utf8')));
  const all = text.join('\n');
  const unread = SETTINGS.filter((s) => !new RegExp(`\\b${s.name}\\b`).test(all)).map((s) => s.name);
  assert.deepEqual(unread, [], 'settings nothing reads any more: drop them from src/config-settings.ts');
  const names = SETTINGS.map((s) => s.name);
  assert.deepEqual(
    names.filter((n, i) => names.indexOf(n) !== i),
    [],
    'listed twice',
  );
});

test('the scan finds each way of reading a variable, and a new one fails it', () => {
  const sample = [
    "const a = process.env.NEW_ONE ?? '';",
    'niceness(io.env.NEW_TWO);',
    "const b = env['NEW_THREE'];",
    "int(env, 'NEW_FOUR', 1, 0, 9);",
    "read.choice('NEW_FIVE');",
    'const c = process.env[SOME_FLAG];',
    "const SOME_FLAG = 'NEW_SIX';",
    'const d = process.env[UNKNOWN];',
    'const { NEW_SEVEN, NEW_EIGHT: renamed } = process.env;',
    'const raw = env[name]; // a reader over any name: not itself a setting',
  ].join('\n');
  assert.deepEqual(envReads(sample), ['?UNKNOWN', 'NEW_EIGHT', 'NEW_FIVE', 'NEW_FOUR', 'NEW_ONE', 'NEW_SEVEN', 'NEW_SIX', 'NEW_THREE', 'NEW_TWO']);
});

test('the page renders defaults, ranges and values from the entries', () => {
  const page = renderSettingsDoc();
  assert.match(page, /^\| `MAX_IMAGE_MB` \| `50` \| 1\.\.4096 \| /m);
  assert.match(page, /^\| `WORKERS` \| `1` \| 1\.\.64, or `auto` \(one a core\) \| /m);
  assert.match(page, /^\| `VISITOR_RATINGS` \| `safe` \| comma list of `safe`, `sketchy`, `unsafe` \| /m);
  assert.match(page, /^\| `DATABASE_URL` \| empty \| a `postgres:\/\/` or `postgresql:\/\/` URL \| /m);
  assert.match(page, /^\| `MIGRATE_ON_START` \| `true` \| `true` or `false`/m);
  const rows = page.split('\n').filter((l) => /^\| `[A-Z]/.test(l));
  assert.equal(rows.length, SETTINGS.length, 'one row a setting');
});
