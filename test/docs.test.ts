import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The README and docs/ are read by people deciding whether to trust the project: every file they
// name must exist, every link must land, and the README must stay a README (issue 20).

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const README = path.join(ROOT, 'README.md');
const DOCS = path.join(ROOT, 'docs');
const PAGES = [
  README,
  ...fs
    .readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(DOCS, f)),
];

/** Folders at the top of the repository whose paths the pages name. */
const TOP = ['src', 'test', 'bench', 'docs', 'web', 'scripts', 'bin', 'public', '.ci'];
/** Paths made by a build, a run or a test, never committed: named in the docs, absent from a clean clone. */
const GENERATED = ['web/dist', 'bench/data', 'dist', 'data', 'test-output', '.tmp'];
const SKIP = new Set(['node_modules', '.git', ...GENERATED]);

/** Every file and folder of the repository ('a/b.ts', 'a/'), generated ones left out. */
function listRepo(): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      if (SKIP.has(p) || SKIP.has(e.name)) continue;
      if (e.isDirectory()) {
        out.push(`${p}/`);
        walk(p);
      } else {
        out.push(p);
      }
    }
  };
  walk('');
  return out;
}
const REPO = listRepo();

/**
 * Repository paths named in a page: `src/app.ts`, `bench/`, `src/modules/<feature>/`, globs such
 * as `src/modules/*\/*.schemas.ts`. Taken from inline code and fenced blocks (the diagrams), where
 * a path starts a token; `/api/posts` and `/usr/bin/chromium` are not repository paths.
 */
export function namedPaths(markdown: string): string[] {
  const code = [...markdown.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((m) => m[1]);
  const inline = [...markdown.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  const found = new Set<string>();
  const token = new RegExp(`(?:^|[\\s(|\`'"])((?:${TOP.map((t) => t.replace('.', '\\.')).join('|')})/[A-Za-z0-9_.*<>/-]*)`, 'g');
  for (const text of [...code, ...inline]) {
    for (const m of text.matchAll(token)) found.add(m[1].replace(/\.+$/, ''));
  }
  return [...found];
}

function exists(named: string): boolean {
  if (GENERATED.some((g) => named === g || named === `${g}/` || named.startsWith(`${g}/`))) return true;
  if (!/[*<]/.test(named)) return fs.existsSync(path.join(ROOT, named));
  const pattern = named
    .split(/(<[^>]+>|\*)/)
    .map((part) => (part === '*' ? '[^/]*' : part.startsWith('<') ? '[^/]+' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  const re = new RegExp(`^${pattern}${named.endsWith('/') ? '' : '/?'}$`);
  return REPO.some((p) => re.test(p));
}

/** GitHub's anchor for a heading: lowercased, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchors(markdown: string): Set<string> {
  const outside = markdown.replace(/```[\s\S]*?```/g, '');
  return new Set([...outside.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1])));
}

test('every repository path the README and docs/ name exists', () => {
  const missing: string[] = [];
  let checked = 0;
  for (const page of PAGES) {
    for (const named of namedPaths(fs.readFileSync(page, 'utf8'))) {
      checked++;
      if (!exists(named)) missing.push(`${path.relative(ROOT, page)}: ${named}`);
    }
  }
  assert.deepEqual(missing, []);
  assert.ok(checked > 50, `only ${checked} paths found: the extraction is broken`);
});

test('the path check finds what it should, and a missing file fails it', () => {
  const sample =
    'See `src/app.ts` and `bench/`, GET `/api/posts`, `/usr/bin/chromium`, `web/dist`.\n```\n  src/server.ts -> src/core/auth.ts.\n```\n`src/modules/<feature>/<feature>.routes.ts` `src/modules/*/*.schemas.ts`';
  assert.deepEqual(
    namedPaths(sample).sort(),
    ['bench/', 'src/app.ts', 'src/core/auth.ts', 'src/modules/*/*.schemas.ts', 'src/modules/<feature>/<feature>.routes.ts', 'src/server.ts', 'web/dist'].sort(),
  );
  for (const p of namedPaths(sample)) assert.ok(exists(p), p);
  assert.equal(exists('src/no-such-file.ts'), false);
  assert.equal(exists('src/modules/*/*.nothing.ts'), false);
});

test('every link in the README and docs/ lands on a file, and on a heading when it names one', () => {
  const broken: string[] = [];
  for (const page of PAGES) {
    const text = fs.readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [file, anchor] = target.split('#');
      const to = file ? path.resolve(path.dirname(page), file) : page;
      if (!fs.existsSync(to)) {
        broken.push(`${path.relative(ROOT, page)}: ${target} (no such file)`);
      } else if (anchor !== undefined && !anchors(fs.readFileSync(to, 'utf8')).has(anchor)) {
        broken.push(`${path.relative(ROOT, page)}: ${target} (no such heading)`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test('the README stays a README: under 220 lines, pointing to the design, API and benchmark pages', () => {
  const text = fs.readFileSync(README, 'utf8');
  const lines = text.split('\n').length;
  assert.ok(lines < 220, `README.md has ${lines} lines`);
  for (const page of ['docs/architecture.md', 'docs/api.md', 'docs/benchmarks.md', 'LICENSE']) {
    assert.ok(text.includes(`](${page})`), `README.md links to ${page}`);
  }
});

test('LICENSE is the licence package.json names', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { license: string };
  const licence = fs.readFileSync(path.join(ROOT, 'LICENSE'), 'utf8');
  assert.equal(pkg.license, 'MIT');
  assert.match(licence, /^MIT License\n/);
  assert.match(licence, /Copyright \(c\) 2026 the imageboard contributors/);
});
