// The shape of the code a newcomer relies on: routes validate and call, and long-lived state
// (indexes, caches) is made in one place, src/services.ts, by the services that own it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '..', 'src');
const files = (fs.readdirSync(SRC, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
const text = (f: string) => fs.readFileSync(path.join(SRC, f), 'utf8');

test('route files create no state: no object made with `new` but errors', () => {
  const found = files
    .filter((f) => f.endsWith('.routes.ts'))
    .flatMap((f) => [...text(f).matchAll(/\bnew ([A-Z]\w*)/g)].map((m) => `${f}: new ${m[1]}`))
    .filter((s) => !/new (AppError|Error|Set|Map|Date|URL)$/.test(s));
  assert.deepEqual(found, []);
});

test('the services that keep state are made in src/services.ts only', () => {
  const makers = files.flatMap((f) => [...text(f).matchAll(/export function (create\w+Service)\b/g)].map((m) => m[1]));
  assert.ok(makers.length >= 3, `stateful services: ${makers.join(', ')}`);
  for (const maker of makers) {
    const callers = files.filter((f) => new RegExp(`\\b${maker}\\(`).test(text(f)) && !new RegExp(`export function ${maker}\\b`).test(text(f)));
    assert.deepEqual(callers, ['services.ts'], `${maker} is called from src/services.ts alone`);
  }
});

test('no file outside src/db/ branches on the database engine: the Database object carries what differs', () => {
  // The engine's name as a value ('sqlite' === ...), the engine read off the Database, or a
  // dialect passed along. Not an engine branch, so not matched: config.ts's URL schemes
  // ('postgres:'), and the engines named in comments and messages (SQLite, PostgreSQL).
  const branches = [/['"`](sqlite|postgres|postgresql)['"`]/i, /\.engine\b/, /\bdialect\b/i];
  const found = files
    .filter((f) => !f.startsWith(`db${path.sep}`))
    .flatMap((f) =>
      text(f)
        .split('\n')
        .map((line, i) => ({ line, at: `${f}:${i + 1}` }))
        .filter(({ line }) => branches.some((b) => b.test(line)))
        .map(({ line, at }) => `${at}: ${line.trim()}`),
    );
  assert.deepEqual(found, []);
});

test('every post list is a search: the list service knows no kept set or index, and the list goes to the search module alone', () => {
  // Issue 21: the special cases that answered some lists from kept sets before the planner saw them are gone.
  const service = text(path.join('modules', 'posts', 'posts.service.ts'));
  const kept = ['tag-sets', 'title-word-sets', 'column-sets', 'newest-order', 'post-numbers', 'search/sets', 'search/post-set', 'search/sql'];
  assert.deepEqual(
    kept.filter((m) => service.includes(`${m}.ts'`)),
    [],
    'posts.service.ts imports none of them',
  );
  const listing = text(path.join('modules', 'posts', 'post-listing.ts'));
  assert.match(
    listing,
    /const page = async <T>\(q: PostListQuery, render: PageRenderer<T>(, filters\?: ListFilters)?\)[\s\S]*listBySearch\(/,
    'every page of post-listing.ts is listBySearch',
  );
  assert.match(listing, /const list = \(q: PostListQuery\): Promise<string> => page\(q, json\)/, 'the list is a page');
  assert.doesNotMatch(listing, /q\.q === undefined/, 'no path for a list without q');
});
