import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backupCommand, restoreCommand } from '../src/cli/backup.ts';
import { openReadOnly } from '../src/db/snapshot.ts';
import { referencedMedia } from '../src/modules/backup/backup.service.ts';
import { png } from './media-fixtures.ts';
import { multipart } from './multipart.ts';
import { freePort, startServer, waitFor } from './server-process.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const tempDir = (name: string) => fs.mkdtempSync(path.join(os.tmpdir(), `ib-${name}-`));

/** `npx imageboard ...` as an operator runs it, in a process of its own. */
function imageboard(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'imageboard.js'), ...args], { env: { ...process.env, DATABASE_URL: '', ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

test('a backup taken while uploads go on restores into a board whose every post has its media, and media check finds no problem', {
  timeout: 240_000,
}, async () => {
  const live = tempDir('live');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = await startServer({ PORT: String(port), HOST: '127.0.0.1', DATA_DIR: live, LOG_LEVEL: 'info', RATE_LIMITS: 'off' });
  const backup = path.join(tempDir('backups'), 'board-backup');
  const restored = tempDir('restored');
  let uploading = true;
  let uploaded = 0;
  try {
    await waitFor(() => server.out().stdout.includes('listening'), 60_000);
    const reg = await fetch(`${base}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'keeper', password: 'a long password' }),
    });
    assert.equal(reg.status, 201);
    const cookie = reg.headers.get('set-cookie')!.split(';')[0];
    const uploader = (async () => {
      for (let seed = 5000; uploading; seed++) {
        const form = multipart({ tags: 'backup test' }, [{ filename: 'x.png', data: await png(seed, 64, 48) }]);
        const res = await fetch(`${base}/api/upload`, { method: 'POST', headers: { cookie, ...form.headers }, body: new Uint8Array(form.payload) });
        assert.equal(res.status, 201, await res.text());
        uploaded++;
      }
    })();
    await waitFor(() => uploaded >= 5, 60_000);

    const before = uploaded;
    const made = await imageboard(['backup', backup], { DATA_DIR: live });
    const during = uploaded - before;
    assert.equal(made.code, 0, made.stderr + made.stdout);
    assert.ok(during > 0, 'uploads were answered while the backup ran');
    uploading = false;
    await uploader;
    assert.deepEqual(fs.readdirSync(backup).sort(), ['imageboard.db', 'manifest.json', 'media.tsv']);
    assert.deepEqual(fs.readdirSync(path.dirname(backup)), ['board-backup'], 'nothing left under a temporary name');
    const manifest = JSON.parse(fs.readFileSync(path.join(backup, 'manifest.json'), 'utf8'));
    assert.ok(manifest.posts >= before && manifest.posts <= uploaded, `${before} <= ${manifest.posts} <= ${uploaded}`);
    assert.deepEqual(manifest.missingMedia, []);
    assert.match(made.stdout, new RegExp(`Backup written to .*: ${manifest.posts} posts`));

    // The media, copied from the live board after the backup (so it holds more than the backup lists).
    const copy = await imageboard(['restore', backup, '--media-from', path.join(live, 'media')], { DATA_DIR: restored });
    assert.equal(copy.code, 0, copy.stderr + copy.stdout);
    assert.match(copy.stdout, /missing: 0; different from the backup: 0\nall media in place/);

    const snapshot = openReadOnly(path.join(restored, 'imageboard.db'));
    try {
      const posts = await snapshot.selectFrom('posts').select(['file_path', 'thumb_path']).execute();
      assert.equal(posts.length, manifest.posts);
      for (const p of posts) {
        assert.ok(fs.existsSync(path.join(restored, 'media', p.file_path)), p.file_path);
        assert.ok(fs.existsSync(path.join(restored, 'media', p.thumb_path)), p.thumb_path);
      }
      const listed = fs.readFileSync(path.join(backup, 'media.tsv'), 'utf8').split('\n').slice(1, -1);
      assert.equal(listed.length, (await referencedMedia(snapshot)).length, 'media.tsv lists every file the database refers to');
    } finally {
      await snapshot.close();
    }

    const check = await imageboard(['media', 'check'], { DATA_DIR: restored, MEDIA_GRACE_MINUTES: '0' });
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, new RegExp(`checked ${manifest.posts} posts`));
    assert.match(check.stdout, /all good/);
  } finally {
    uploading = false;
    server.child.kill('SIGKILL');
    for (const dir of [live, path.dirname(backup), restored]) fs.rmSync(dir, { recursive: true, force: true });
  }
});

/** Runs a command function, collecting what it writes. */
async function run(command: typeof backupCommand, args: string[], env: Record<string, string>) {
  let out = '';
  let err = '';
  const code = await command(args, { env, out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } });
  return { code, out, err };
}

test('backup and restore on a PostgreSQL board say they are for SQLite and point to pg_dump', async () => {
  for (const command of [backupCommand, restoreCommand]) {
    const r = await run(command, ['somewhere'], { DATABASE_URL: 'postgres://u@127.0.0.1:5432/board', DATA_DIR: tempDir('pg') });
    assert.equal(r.code, 2);
    assert.match(r.err, /works on SQLite boards .* PostgreSQL database/);
    assert.match(r.err, /pg_dump/);
  }
});

test('restore refuses a DATA_DIR that holds a board, and a folder that is not a backup', async () => {
  const board = tempDir('board');
  fs.writeFileSync(path.join(board, 'imageboard.db'), '');
  const notBackup = tempDir('not-backup');
  const backup = tempDir('backup');
  fs.writeFileSync(path.join(backup, 'manifest.json'), JSON.stringify({ format: 'imageboard-backup', version: 1 }));
  fs.writeFileSync(path.join(backup, 'media.tsv'), 'path\tbytes\tsha256\n');
  const there = await run(restoreCommand, [backup], { DATA_DIR: board, DATABASE_URL: '' });
  assert.equal(there.code, 2);
  assert.match(there.err, /already exists: restore only into a DATA_DIR without a board/);
  const wrong = await run(restoreCommand, [notBackup], { DATA_DIR: tempDir('empty'), DATABASE_URL: '' });
  assert.equal(wrong.code, 2);
  assert.match(wrong.err, /is not a backup/);
});
