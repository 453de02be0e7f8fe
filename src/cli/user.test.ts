import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { buildApp, type App } from '../app.ts';
import { testConfig } from '../config.ts';
import { passwordSource, promptHidden } from './password-input.ts';
import { userCommand } from './user.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** `npx imageboard ...` as a separate process, with stdin given (not a terminal). */
function imageboard(dataDir: string, args: string[], input = '', env: Record<string, string> = {}) {
  return spawnSync(process.execPath, ['bin/imageboard.js', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', ...env },
    input,
    encoding: 'utf8',
  });
}

const login = (app: App, username: string, password: string) => app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password } });

describe('the CLI and its database', () => {
  test('a command pointed at a folder without a database says so, names it, and creates nothing', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-cli-none-'));
    const file = path.join(dataDir, 'imageboard.db');
    for (const args of [
      ['user', 'set-tier', 'alice', 'pro'],
      ['user', 'create', 'alice', '--role', 'admin'],
      ['media', 'check'],
    ]) {
      const res = imageboard(dataDir, args, 'a long password\n');
      assert.equal(res.status, 2, `${args.join(' ')}: ${res.stderr}`);
      assert.match(res.stderr, new RegExp(`Using database: SQLite ${file.replace(/[.\\/]/g, '\\$&')}`));
      assert.match(res.stderr, /no board in/);
      assert.match(res.stderr, /DATA_DIR/);
      assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace');
      assert.equal(fs.existsSync(file), false, `${args.join(' ')} created no database`);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
});

describe('imageboard user create: the password', () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-cli-pw-'));
  let app: App;
  before(async () => {
    app = await buildApp(testConfig({ dataDir })); // creates the database, as npm start does
    await app.ready();
  });
  after(async () => {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('is read from standard input when not given, and never needs argv', async () => {
    const res = imageboard(dataDir, ['user', 'create', 'alice', '--role', 'admin'], 'alice long password\n');
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /created alice .*role admin/);
    assert.match(res.stderr, /Using database: SQLite /);
    assert.doesNotMatch(res.stderr, /Warning/);
    assert.equal((await login(app, 'alice', 'alice long password')).statusCode, 200, 'only the final line ending is dropped');
  });

  test("the README's first admin is made on the enterprise tier and can make an API key at once", async () => {
    const res = imageboard(dataDir, ['user', 'create', 'ada', '--role', 'admin'], 'ada long password\n');
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stdout, /created ada .*role admin, tier enterprise/);
    const signedIn = await login(app, 'ada', 'ada long password');
    const cookie = signedIn.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
    const key = await app.inject({ method: 'POST', url: '/api/user/api-keys', payload: { name: 'my bot' }, headers: { cookie } });
    assert.equal(key.statusCode, 201, key.body);
    const listed = await app.inject({ method: 'GET', url: '/api/user/api-keys', headers: { 'x-api-key': key.json().key } });
    assert.equal(listed.statusCode, 200, 'the key works');
    const member = imageboard(dataDir, ['user', 'create', 'ben', '--role', 'moderator'], 'ben long password\n');
    assert.match(member.stdout, /role moderator, tier free/, 'other roles start on the free tier, as sign-ups do');
  });

  test('on the command line still works (the documented form) but warns that others can see it', async () => {
    const res = imageboard(dataDir, ['user', 'create', 'bob', 'bob-long-password']);
    assert.equal(res.status, 0, res.stderr);
    assert.match(res.stderr, /Warning: a password on the command line is visible .* process list .* history/);
    assert.match(res.stderr, /echo "\$PASSWORD" \| imageboard user create/);
    assert.equal((await login(app, 'bob', 'bob-long-password')).statusCode, 200);
  });

  test('an empty or short password on standard input creates nothing (exit 2)', async () => {
    assert.equal(imageboard(dataDir, ['user', 'create', 'carol'], '').status, 2);
    const short = imageboard(dataDir, ['user', 'create', 'carol'], 'short\n');
    assert.equal(short.status, 2);
    assert.match(short.stderr, /password/);
    assert.equal((await app.deps.db.selectFrom('users').select('id').where('username', '=', 'carol').execute()).length, 0);
  });

  test('user reset-password prints a link under PUBLIC_URL whose token sets the password', async () => {
    assert.equal(imageboard(dataDir, ['user', 'create', 'dora'], 'dora long password\n').status, 0);
    const res = imageboard(dataDir, ['user', 'reset-password', 'dora'], '', { PUBLIC_URL: 'https://board.example.org' });
    assert.equal(res.status, 0, res.stderr);
    const token = res.stdout.match(/^https:\/\/board\.example\.org\/reset\?token=([\w-]{43})$/m)?.[1];
    assert.ok(token, res.stdout);
    const set = await app.inject({ method: 'POST', url: '/api/auth/reset', payload: { token, password: 'dora new password' } });
    assert.equal(set.statusCode, 200, set.body);
    assert.equal((await login(app, 'dora', 'dora new password')).statusCode, 200);
  });

  test('on a terminal it is asked for with echo off; what is typed before the prompt shows is kept for the prompts', { timeout: 10_000 }, async () => {
    const input = fakeTerminal();
    let shown = '';
    const answer = promptHidden('Password: ', input, { write: (t: string) => (shown += t) });
    assert.equal(input.raw, true, 'the terminal echoes nothing while typing');
    input.write('secret pass\u007fs\r');
    assert.equal(await answer, 'secret pass');
    assert.equal(input.raw, false);
    assert.equal(shown, 'Password: \n', 'the typed characters are never written back');

    // Both passwords typed before the first prompt: the terminal hands them over in one piece
    // once echo is off (the lines end in \n, typed while it was still a terminal's line).
    const ahead = fakeTerminal();
    ahead.write('typed ahead pw\ntyped ahead pw\n');
    let said = '';
    const source = passwordSource(ahead, { write: (t: string) => (said += t) });
    assert.equal(ahead.raw, true, 'echo goes off when the source is made, before the command awaits anything');
    assert.deepEqual(await source.read('eve'), { password: 'typed ahead pw' }, 'the second line is the second answer, not dropped');
    source.close();
    assert.equal(ahead.raw, false);
    assert.equal(said, 'Password for eve: \nThe same password again: \n');
  });

  test('user create on a terminal turns echo off before opening the database and keeps the passwords typed meanwhile', { timeout: 20_000 }, async () => {
    const input = fakeTerminal();
    let out = '';
    let err = '';
    const io = {
      env: { DATA_DIR: dataDir, DATABASE_URL: '' },
      out: { write: (t: string) => (out += t) },
      err: { write: (t: string) => (err += t) },
      in: input,
    };
    const done = userCommand(['create', 'erin'], io);
    assert.equal(input.raw, true, 'echo is off at once: what is typed while the database opens is not shown');
    assert.doesNotMatch(err, /Password/, 'typed before the prompt shows');
    input.write('erin long password\rerin long password\r');
    assert.equal(await done, 0, err);
    assert.equal(input.raw, false, 'echo is back on');
    assert.match(out, /created erin /);
    assert.doesNotMatch(out + err, /erin long password/, 'never written back');
    assert.equal((await login(app, 'erin', 'erin long password')).statusCode, 200);
  });
});

/** A stand-in for a terminal on standard input: raw is whether echo is off. */
function fakeTerminal() {
  return Object.assign(new PassThrough(), {
    isTTY: true,
    raw: false,
    setRawMode(mode: boolean) {
      this.raw = mode;
    },
  });
}
