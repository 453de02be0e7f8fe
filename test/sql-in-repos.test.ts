// SQL lives in repositories (issue 58): a feature module's statements are in its *.repo.ts files
// (or src/db/queries/ when several modules share them), and everything else in the module, its
// services, routes and jobs, calls them. The same holds for core/, jobs/, the command line and the
// files at src/'s top.
// What may speak SQL besides: src/db/ (the engine, migrations, shared queries), src/search/ (it
// compiles the query language to SQL and keeps its sets current from the tables) and src/seed/
// (the bench's bulk loader). A service may still open a transaction and hand it to repositories.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

const SRC = path.resolve(import.meta.dirname, '..', 'src');
const HELD = ['modules', 'core', 'jobs', 'cli'];

/** What writes SQL: a query builder's first call, the sql template tag, or Kysely itself imported. */
const SQL = [
  /\.(selectFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto|selectNoFrom)\(/,
  /\bsql(<[^>]*>)?`/,
  /\bsql\.(ref|raw|lit|join|id|table|val)\(/,
  /from ['"]kysely['"]/,
];

function heldFiles(): string[] {
  const files = fs
    .readdirSync(SRC, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.repo.ts'));
  // The files at src/'s top (the server, the app, the settings) are held to it as well.
  return files.filter((f) => !f.includes(path.sep) || HELD.includes(f.split(path.sep)[0]) || f.endsWith('.service.ts')).sort();
}

test('no statement outside a repository: services, routes and jobs call *.repo.ts or db/queries/', () => {
  const files = heldFiles();
  assert.ok(files.length > 100, `files checked: ${files.length}`);
  const found = files.flatMap((f) =>
    fs
      .readFileSync(path.join(SRC, f), 'utf8')
      .split('\n')
      .map((line, i) => ({ line, at: `${f}:${i + 1}` }))
      .filter(({ line }) => !/^\s*(\/\/|\*|\/\*)/.test(line) && SQL.some((re) => re.test(line)))
      .map(({ line, at }) => `${at}: ${line.trim()}`),
  );
  assert.ok(found.length === 0, `${found.length} lines write SQL outside a repository:\n${found.join('\n')}`);
});

test('the rule sees SQL where it is', () => {
  // The patterns match what they are meant to: a check that matches nothing would pass anything.
  const samples = [
    "db.selectFrom('posts')",
    'sql`SELECT 1`',
    'sql<number>`count(*)`',
    "import { sql } from 'kysely';",
    "trx.insertInto('tags')",
    "sql.ref('id')",
  ];
  for (const s of samples)
    assert.ok(
      SQL.some((re) => re.test(s)),
      s,
    );
  assert.ok(!SQL.some((re) => re.test('await repo.findPost(deps.db, id)')));
});
