import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshDatabase } from '../../test/helpers.ts';
import { buildApp } from '../app.ts';
import { testConfig } from '../config.ts';
import { seedDatabase } from '../seed/generate.ts';
import { seedCommand } from './seed.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('seed: failures', () => {
  test('a media directory that cannot be written fails the seed and says the database is partly filled', async (t) => {
    const fresh = await freshDatabase('sqlite');
    t.after(() => fresh.cleanup());
    const notADirectory = path.join(fresh.dataDir, 'media');
    fs.writeFileSync(notADirectory, 'a file where the media folder should be');
    const o = { posts: 30, seed: 7, until: Date.parse('2026-06-15T12:00:00Z'), mediaDir: notADirectory };
    await assert.rejects(seedDatabase(fresh.database, o), /part way.*(ENOTDIR|EEXIST)/);
  });
});

describe('imageboard seed (the command)', () => {
  const run = async (args: string[], env: Record<string, string>) => {
    let out = '';
    let err = '';
    const code = await seedCommand(args, { env, out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } });
    return { code, out, err };
  };
  const temp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'imageboard-seed-'));

  test('bad options exit with 2 and say what is wrong', async () => {
    const env = { DATA_DIR: temp() };
    for (const [args, message] of [
      [['--posts', 'abc'], /--posts must be a whole number/],
      [['--posts', '0'], /--posts must be a whole number from 1/],
      [[], /--posts N is required/],
      [['--posts', '5', '--until', 'yesterday'], /--until must be an ISO date/],
      [['--posts', '5', '--tags-per-post', '65'], /--tags-per-post/],
    ] as const) {
      const r = await run([...args], env);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.err, message);
    }
    assert.deepEqual(fs.readdirSync(env.DATA_DIR), [], 'no database was created');
    fs.rmSync(env.DATA_DIR, { recursive: true, force: true });
  });

  test('seeds, prints the password, and refuses a second time with exit code 1', async (t) => {
    const env = { DATA_DIR: temp() };
    t.after(() => fs.rmSync(env.DATA_DIR, { recursive: true, force: true }));
    const first = await run(['--posts', '40', '--no-media', '--until', '2026-01-01'], env);
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /posts\s+40\b/);
    assert.match(first.out, /password is: password123/);
    assert.match(first.err, /posts\s+40\/40 \(100%\)/);
    assert.ok(!fs.existsSync(path.join(env.DATA_DIR, 'media')), '--no-media writes no files');
    const second = await run(['--posts', '40', '--no-media'], env);
    assert.equal(second.code, 1);
    assert.match(second.err, /already has 40 posts/);
  });

  test('says that it made an admin account, and the name and password it signs in with do', async (t) => {
    const env = { DATA_DIR: temp() };
    t.after(() => fs.rmSync(env.DATA_DIR, { recursive: true, force: true }));
    const seeded = await run(['--posts', '3', '--users', '3', '--no-media'], env);
    assert.equal(seeded.code, 0, seeded.err);
    const said = seeded.out.match(/^Made an admin account: sign in as '(\w+)' with the password (\S+)\. On a board others can reach,$/m);
    assert.ok(said, seeded.out);
    assert.match(seeded.out, new RegExp(`give it a password of its own first: imageboard user reset-password ${said[1]} prints a link`));
    const app = await buildApp(testConfig({ dataDir: env.DATA_DIR }));
    t.after(() => app.close());
    const login = await app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: said[1], password: said[2] } });
    assert.equal(login.statusCode, 200, login.body);
    assert.equal(login.json().user.role, 'admin');
  });

  test('npx imageboard seed writes media through its worker', (t) => {
    const dataDir = temp();
    t.after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const res = spawnSync(process.execPath, ['bin/imageboard.js', 'seed', '--posts', '12', '--seed', '3'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
      encoding: 'utf8',
    });
    assert.equal(res.status, 0, res.stderr);
    const originals = fs.readdirSync(path.join(dataDir, 'media', 'originals'), { recursive: true }).filter((f) => String(f).endsWith('.png'));
    assert.equal(originals.length, 12);
    const unknown = spawnSync(process.execPath, ['bin/imageboard.js', 'seed', '--post', '12'], {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir },
      encoding: 'utf8',
    });
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /--post/);
  });
});
