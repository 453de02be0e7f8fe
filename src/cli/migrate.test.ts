import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { commandEnv, databaseKinds, freshDatabase, type Ctx } from '../../test/helpers.ts';
import { freePort, startServer, waitFor } from '../../test/server-process.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { MIGRATIONS } from '../db/migrate.ts';
import { migrateCommand } from './migrate.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const NAMES = Object.keys(MIGRATIONS);

async function run(env: Record<string, string>) {
  let out = '';
  let err = '';
  const code = await migrateCommand([], { env, out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } });
  return { code, out, err };
}

for (const kind of databaseKinds()) {
  test(`[${kind}] imageboard migrate applies what the database lacks and says which; the server refuses an older schema with MIGRATE_ON_START=false`, async () => {
    const fresh = await freshDatabase(kind, { lastMigration: NAMES.at(-3) });
    try {
      const env = await commandEnv({ kind, database: fresh.database, dataDir: fresh.dataDir } as Ctx);
      const config = { ...loadConfig(env), logLevel: 'silent' as const, migrateOnStart: false };
      await assert.rejects(buildApp(config), (err: Error) => {
        assert.equal(err.name, 'SchemaBehind');
        assert.match(err.message, /imageboard migrate/);
        assert.match(err.message, new RegExp(`2 migration\\(s\\) not applied \\(${NAMES.at(-2)}, ${NAMES.at(-1)}\\)`));
        return true;
      });

      const first = await run(env);
      assert.equal(first.code, 0, first.err);
      assert.equal(first.out, `Applied 2 migration(s):\n  ${NAMES.at(-2)}\n  ${NAMES.at(-1)}\nThe schema is up to date.\n`);
      assert.match(first.err, /Using database: /);
      const again = await run(env);
      assert.equal(again.out, 'The schema is up to date: no migration to apply.\n');

      const app = await buildApp(config);
      assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200, 'serves once migrated');
      await app.close();
    } finally {
      await fresh.cleanup();
    }
  });
}

test('a new board with MIGRATE_ON_START=false: the server exits naming `imageboard migrate`; after `npx imageboard migrate` it starts', async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-'));
  const env = { PORT: String(await freePort()), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info', MIGRATE_ON_START: 'false' };
  const refused = await startServer(env);
  assert.equal(await refused.exited, 1);
  assert.match(refused.out().stderr, /not applied .*Run `npx imageboard migrate`/);
  assert.doesNotMatch(refused.out().stderr, /\n\s+at /, 'a message, not a stack trace');

  const cli = spawnSync(process.execPath, [path.join(ROOT, 'bin', 'imageboard.js'), 'migrate'], {
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
    encoding: 'utf8',
  });
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stdout, new RegExp(`^Applied ${NAMES.length} migration\\(s\\):\\n  ${NAMES[0]}\\n`));

  const server = await startServer(env);
  try {
    await waitFor(() => server.out().stdout.includes('listening'));
  } finally {
    server.child.kill('SIGKILL');
  }
});
