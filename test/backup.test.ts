import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { backupCommand, restoreCommand } from '../src/cli/backup.ts';
import { openReadOnly } from '../src/db/snapshot.ts';
import { testConfig } from '../src/config.ts';
import { referencedMedia } from '../src/modules/backup/backup.service.ts';
import { restoreBackup } from '../src/modules/backup/restore.service.ts';
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
    assert.match(copy.stdout, /already in place: 0; missing: 0\nall media in place/);

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

/** A small seeded board, its backup, and a copy of its media made after it, as docs/deploy.md says; made once. */
let made: Promise<{ live: string; backup: string; media: string }> | null = null;
function board() {
  made ??= (async () => {
    const live = tempDir('seeded');
    const seeded = await imageboard(['seed', '--posts', '4', '--users', '2', '--seed', '5'], { DATA_DIR: live });
    assert.equal(seeded.code, 0, seeded.stderr);
    const backup = path.join(tempDir('backups'), 'b1');
    const r = await run(backupCommand, [backup], { DATA_DIR: live, DATABASE_URL: '' });
    assert.equal(r.code, 0, r.err);
    const media = `${backup}.media`;
    fs.cpSync(path.join(live, 'media'), media, { recursive: true });
    return { live, backup, media };
  })();
  return made;
}

/** Every path under dir (null when there is no dir): what a failed restore must leave as it found it. */
function listing(dir: string): string[] | null {
  if (!fs.existsSync(dir)) return null;
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort();
}

const restore = (args: string[], dataDir: string) => run(restoreCommand, args, { DATA_DIR: dataDir, DATABASE_URL: '' });

/** A copy of the backup's media folder, changed by `change`. */
function mediaCopy(from: string, change: (dir: string, files: string[]) => void): string {
  const dir = path.join(tempDir('media-copy'), 'media');
  fs.cpSync(from, dir, { recursive: true });
  const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
  change(dir, files);
  return dir;
}

test('restore with a wrong --media-from writes nothing, names what is missing and what to do; the same restore with the right folder then works', async () => {
  const b = await board();
  for (const dataDir of [path.join(tempDir('target'), 'new'), tempDir('empty-target')]) {
    const before = listing(dataDir);
    for (const wrong of [tempDir('wrong'), b.live]) {
      const r = await restore([b.backup, '--media-from', wrong], dataDir);
      assert.equal(r.code, 1, r.err);
      assert.match(r.err, new RegExp(`Nothing was restored; ${dataDir} is as it was\\.\n\\d+ of the \\d+ media files the backup lists are not under ${wrong}`));
      assert.match(r.err, /--media-from must name the copy of DATA_DIR\/media made after this backup/);
      assert.match(r.err, /Then run the same restore again/);
      if (wrong === b.live) assert.match(r.err, new RegExp(`looks like a DATA_DIR: give --media-from ${b.live}/media`));
      assert.deepEqual(listing(dataDir), before, 'no database, no media, no temporary file');
    }
    const right = await restore([b.backup, '--media-from', b.media], dataDir);
    assert.equal(right.code, 0, right.err);
    assert.match(right.out, /copied: \d+; already in place: 0; missing: 0\nall media in place\n/);
    const check = await imageboard(['media', 'check'], { DATA_DIR: dataDir, MEDIA_GRACE_MINUTES: '0' });
    assert.match(check.stdout, /checked 4 posts .*\n[\s\S]*all good/);
  }
});

test('a media file with other bytes is found while copying: everything the restore wrote is taken back', async () => {
  const b = await board();
  // The last file listed: every other one is copied before it is read.
  const media = mediaCopy(b.media, (dir, files) => {
    const last = path.join(dir, files.at(-1)!);
    const bytes = fs.readFileSync(last);
    bytes[bytes.length - 1] ^= 0xff;
    fs.writeFileSync(last, bytes);
  });
  const dataDir = tempDir('target');
  const r = await restore([b.backup, '--media-from', media], dataDir);
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /Nothing was restored; .* is as it was\.\n1 media files under .* have other bytes than the backup lists \(sha256\):\n {2}thumbs\//);
  assert.match(r.err, /restore: copying .*\n/, 'it had copied files');
  assert.deepEqual(listing(dataDir), [], 'DATA_DIR as it was found: empty');
});

test('a backup that is not whole is refused before anything is written', async () => {
  const b = await board();
  const broken = (change: (dir: string) => void) => {
    const dir = path.join(tempDir('broken'), 'b1');
    fs.cpSync(b.backup, dir, { recursive: true });
    change(dir);
    return dir;
  };
  const cases: [string, string, RegExp][] = [
    ['no database', broken((d) => fs.rmSync(path.join(d, 'imageboard.db'))), /is not a whole backup: imageboard\.db is missing/],
    ['a database cut short', broken((d) => fs.truncateSync(path.join(d, 'imageboard.db'), 8192)), /imageboard\.db (is damaged|cannot be read)/],
    [
      'a media list cut short',
      broken((d) => fs.writeFileSync(path.join(d, 'media.tsv'), fs.readFileSync(path.join(d, 'media.tsv'), 'utf8').split('\n').slice(0, 3).join('\n'))),
      /is not a whole backup: media\.tsv lists 2 files, manifest\.json says \d+/,
    ],
    ['no media list', broken((d) => fs.rmSync(path.join(d, 'media.tsv'))), /is not a whole backup: media\.tsv is missing/],
    ['no manifest (unfinished)', broken((d) => fs.rmSync(path.join(d, 'manifest.json'))), /is not a backup: it has no readable manifest\.json/],
  ];
  for (const [what, backup, message] of cases) {
    const dataDir = path.join(tempDir('target'), 'new');
    const r = await restore([backup, '--media-from', b.media], dataDir);
    assert.equal(r.code, 2, `${what}: ${r.err}`);
    assert.match(r.err, message, what);
    assert.equal(listing(dataDir), null, `${what}: DATA_DIR is not even made`);
  }
});

test('a restore interrupted part-way (Ctrl-C) takes back what it wrote', async () => {
  const b = await board();
  const dataDir = path.join(tempDir('target'), 'new');
  const stop = new AbortController();
  const steps: string[] = [];
  const onProgress = (step: string, done: number) => {
    steps.push(`${step} ${done}`);
    if (step === 'copying' && done === 2) stop.abort();
  };
  await assert.rejects(restoreBackup(testConfig({ dataDir }), b.backup, { mediaFrom: b.media, allowMissing: false }, onProgress, stop.signal), {
    name: 'AbortError',
  });
  assert.ok(steps.includes('copying 2'), 'it had copied files');
  assert.equal(listing(dataDir), null, 'not even DATA_DIR is left');
});

test('files found nowhere are restored without only with --allow-missing, which says how to tidy up', async () => {
  const b = await board();
  let gone = '';
  const media = mediaCopy(b.media, (dir, files) => {
    gone = files[0];
    fs.rmSync(path.join(dir, gone));
  });
  const dataDir = tempDir('target');
  const refused = await restore([b.backup, '--media-from', media], dataDir);
  assert.equal(refused.code, 1);
  assert.match(refused.err, new RegExp(`1 of the \\d+ media files the backup lists are not under .*\n {2}${gone}\n`));
  assert.match(refused.err, /add --allow-missing to restore without them/);
  assert.deepEqual(listing(dataDir), []);
  const allowed = await restore([b.backup, '--media-from', media, '--allow-missing'], dataDir);
  assert.equal(allowed.code, 0, allowed.err);
  assert.match(allowed.out, new RegExp(`missing: 1\nrestored without \\(--allow-missing\\): ${gone}\n.*imageboard media check --fix`));
});

test("restore checks media already copied into DATA_DIR/media, and leaves the operator's files there when it refuses", async () => {
  const b = await board();
  const dataDir = tempDir('target');
  fs.cpSync(b.media, path.join(dataDir, 'media'), { recursive: true });
  const first = (fs.readdirSync(path.join(dataDir, 'media'), { recursive: true }) as string[]).filter((f) => f.endsWith('.png')).sort()[0];
  fs.rmSync(path.join(dataDir, 'media', first));
  const before = listing(dataDir);
  const r = await restore([b.backup], dataDir);
  assert.equal(r.code, 1);
  assert.match(r.err, /Give --media-from DIR, the copy of DATA_DIR\/media made after this backup, or copy the media into .* first/);
  assert.deepEqual(listing(dataDir), before);
  fs.copyFileSync(path.join(b.media, first), path.join(dataDir, 'media', first));
  const done = await restore([b.backup], dataDir);
  assert.equal(done.code, 0, done.err);
  assert.match(done.out, /copied: 0; already in place: \d+; missing: 0\nall media in place/);
});

test('off a terminal, restore prints its progress as whole lines, a few of them', async () => {
  const b = await board();
  const r = await restore([b.backup, '--media-from', b.media], tempDir('target'));
  assert.equal(r.code, 0, r.err);
  assert.doesNotMatch(r.err, /\r/, 'no carriage returns: they run lines together in a log');
  const lines = r.err.split('\n');
  assert.equal(lines.pop(), '', 'the last line is ended');
  const progress = lines.filter((l) => l.startsWith('restore: '));
  assert.deepEqual(
    progress.map((l) => l.split(/\s+/)[1]),
    ['checking', 'checking', 'copying', 'copying'],
    'the first and last of each step: it takes well under the five seconds between lines',
  );
  for (const l of progress) assert.match(l, /^restore: \w+\s+\d+\/\d+ \(\d+%\) \[[#.]{20}\] \d+\.\ds$/);
});

test('restore refuses a DATA_DIR that holds a board, or a database file left by one, and a folder that is not a backup', async () => {
  const b = await board();
  for (const left of ['imageboard.db', 'imageboard.db-wal']) {
    const dataDir = tempDir('board');
    fs.writeFileSync(path.join(dataDir, left), '');
    const there = await restore([b.backup, '--media-from', b.media], dataDir);
    assert.equal(there.code, 2);
    assert.match(there.err, new RegExp(`${left} already exists: restore only into a DATA_DIR without a board`));
    assert.deepEqual(listing(dataDir), [left]);
  }
  const wrong = await restore([tempDir('not-backup')], tempDir('empty'));
  assert.equal(wrong.code, 2);
  assert.match(wrong.err, /is not a backup/);
});

test('the usage names the backup a folder', async () => {
  const r = await run(backupCommand, [], {});
  assert.equal(r.code, 2);
  assert.match(r.err, /^Usage:\n {2}backup DIR\n[\s\S]* {2}restore DIR \[--media-from MEDIA_DIR\] \[--allow-missing\]\n/);
  assert.doesNotMatch(r.err, /FILE/);
});

test("the README's backup, media copy and restore lines, run as written, restore the board", async () => {
  const b = await board();
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const block = readme.slice(readme.indexOf('## Command line')).match(/```sh\n([\s\S]*?)```/)![1];
  const lines = block.split('\n').map((l) => l.replace(/\s+#.*$/, ''));
  const at = lines.findIndex((l) => l.startsWith('npx imageboard backup '));
  assert.ok(at >= 0, 'the README shows a backup');
  const [backup, copy, restoreLine] = lines.slice(at, at + 3);
  assert.match(copy, /media\//, 'the line after the backup copies the media');
  assert.match(restoreLine, /^npx imageboard restore .* --media-from /);
  const place = tempDir('readme');
  const shell = (line: string, dataDir: string) =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const command = line
        .replaceAll('/backups/', `${place}/`)
        .replace(/^npx imageboard /, `"${process.execPath}" "${path.join(ROOT, 'bin', 'imageboard.js')}" `);
      const child = spawn('sh', ['-c', command], { env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' } });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('exit', (code) => resolve({ code, out }));
    });
  for (const line of [backup, copy]) {
    const r = await shell(line, b.live);
    assert.equal(r.code, 0, `${line}\n${r.out}`);
  }
  const restored = await shell(restoreLine, path.join(place, 'new-board'));
  assert.equal(restored.code, 0, restored.out);
  assert.match(restored.out, /all media in place/);
});
