// The disk under a SQLite board fills up, or goes read-only, while a steady load of readers and
// writers runs against the real server process: writes answer 507 or 503 naming the disk, never
// 500 nor a hang, reads go on, nothing is left half-written, and once the disk is fixed writes work
// again; every write answered 2xx is found afterwards. The disks are filesystems of their own,
// mounted by the test (it needs root; without, it is skipped saying so).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test, type TestContext } from 'node:test';
import { testConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { checkMedia } from '../src/modules/uploads/media-check.ts';
import { LocalMediaStore } from '../src/storage/local.ts';
import { assertNoHangNor500, assertWrittenKept, type BoardClient, HANG_MS, member, type Sent, startBoard, steadyLoad, tally, within } from './outage.ts';

const ROOT = path.resolve(import.meta.dirname, '..');

type Board = Awaited<ReturnType<typeof startBoard>>;
type Load = ReturnType<typeof steadyLoad>;

const OUTAGE_MS = 6000;
const WRITES: Sent['what'][] = ['upload', 'comment', 'like'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const run = (cmd: string, args: string[]) =>
  execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 30_000 })
    .toString()
    .trim();
const firstLine = (err: unknown) => String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).split('\n')[0];

/** Why filesystems cannot be mounted here (not root, or the sandbox forbids it), or null. */
function mountProblem(): string | null {
  if (process.getuid?.() !== 0) return 'mounting a filesystem needs root';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-mount-probe-'));
  try {
    run('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
    run('umount', [dir]);
    return null;
  } catch (err) {
    return `cannot mount a tmpfs here: ${firstLine(err)}`;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Why an ext4 filesystem on a loop device cannot be made here, or null. */
function loopProblem(): string | null {
  const mounting = mountProblem();
  if (mounting) return mounting;
  for (const tool of ['losetup', 'mkfs.ext4', 'e2fsck']) {
    try {
      run('sh', ['-c', `command -v ${tool}`]);
    } catch {
      return `${tool} is not installed (Debian packages mount and e2fsprogs)`;
    }
  }
  return fs.existsSync('/dev/loop-control') ? null : 'no loop devices here (/dev/loop-control)';
}

/** Writes `file` until the filesystem has no room left; returns the bytes written. */
function fill(file: string): number {
  const fd = fs.openSync(file, 'a');
  const chunk = Buffer.alloc(1 << 20, 7);
  let written = 0;
  try {
    // A write finding less room writes what fits, the next one fails; bounded, should a filesystem never say ENOSPC.
    for (let i = 0; i < 10_000; i++) written += fs.writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    fs.closeSync(fd);
  }
  return written;
}

/** Registers three members and starts the steady load with them, counted in 'before' for two seconds. */
async function loadOn(call: BoardClient, prefix: string): Promise<{ load: Load; users: { cookie: string }[] }> {
  const users = [];
  for (let i = 0; i < 3; i++) users.push(await member(call, `${prefix}${i}`));
  const load = steadyLoad(call, users);
  await sleep(2000);
  return { load, users };
}

/** Polls /readyz through an outage of OUTAGE_MS, running `during` between polls; returns the statuses. */
async function throughOutage(call: BoardClient, during: () => void = () => {}): Promise<number[]> {
  const statuses: number[] = [];
  for (const end = Date.now() + OUTAGE_MS; Date.now() < end; ) {
    await sleep(200);
    during();
    statuses.push((await call('GET', '/readyz')).status);
  }
  return statuses;
}

/** Waits until an upload, a comment and a like of the load have been answered 2xx in `phase`; returns how long that took. */
const writesWork = (load: Load, phase: string) =>
  within(10_000, `an upload, a comment and a like answered 2xx in ${phase}`, async () =>
    WRITES.every((what) => Object.keys(tally(load.sent, phase, what)).some((s) => s.startsWith('2'))),
  );

/**
 * During the outage: every read answered 200, no 500 and no hang, each refusal naming the disk,
 * and some write of each group in `refused` refused with `status`.
 */
function assertOutage(sent: Sent[], phase: string, status: 503 | 507, refused: Sent['what'][][]): void {
  for (const what of ['read', 'media'] as const) {
    const answers = tally(sent, phase, what);
    assert.deepEqual(Object.keys(answers), ['200'], `${what}s during ${phase}: ${JSON.stringify(answers)}`);
  }
  for (const group of refused)
    assert.ok(
      group.some((what) => tally(sent, phase, what)[status] > 0),
      `some ${group.join(' or ')} refused with ${status} during ${phase}`,
    );
  assertNoHangNor500(sent, 'disk');
}

/** Statuses counted: `{"503":28}`. */
const counted = (statuses: number[]) => JSON.stringify(Object.fromEntries([...new Set(statuses)].map((s) => [s, statuses.filter((x) => x === s).length])));

/** What a refusal of `status` said, for the diagnostics. */
const refusal = (sent: Sent[], status: number) => sent.find((s) => s.status === status)?.body?.error;

function showTallies(t: TestContext, sent: Sent[], phases: string[]): void {
  for (const phase of phases)
    t.diagnostic(`${phase}: ${['read', 'media', ...WRITES].map((what) => `${what} ${JSON.stringify(tally(sent, phase, what as Sent['what']))}`).join(', ')}`);
}

/** The server's warnings and errors, for the diagnostics. */
const warnings = (board: Board) =>
  board
    .out()
    .stdout.split('\n')
    .filter((l) => /"level":(40|50|60)/.test(l))
    .map((l) => JSON.parse(l).msg);

/** What `imageboard media check` finds in a stopped board's DATA_DIR, with no grace period: asserts it is clean. */
async function assertMediaClean(t: TestContext, dataDir: string): Promise<void> {
  const db = await openDatabase({ url: '', dataDir });
  try {
    const config = testConfig({ dataDir, mediaGraceMinutes: 0 });
    const media = new LocalMediaStore(path.join(dataDir, 'media'));
    const report = await checkMedia({ db, config, clock: { now: () => Date.now() }, media, startedAt: Date.now() }, false);
    t.diagnostic(`media check: ${report.postsChecked} posts, ${report.filesChecked} files`);
    assert.deepEqual(report.rowsWithoutFiles, [], 'no post without its files');
    assert.deepEqual(report.filesWithoutRows, [], 'no file without its post, no temporary file left');
    assert.deepEqual(report.missingThumbnails, []);
  } finally {
    await db.close();
  }
}

test('a full disk: writes answer 507, reads go on, nothing is half-written, and writes work again once space is freed', { timeout: 120_000 }, async (t) => {
  const problem = mountProblem();
  if (problem) return t.skip(problem);
  const mount = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-full-'));
  const dataDir = path.join(mount, 'board');
  const filler = path.join(mount, 'filler');
  let mounted = false;
  let board: Board | null = null;
  let load: Load | null = null;
  try {
    run('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', mount]);
    mounted = true;
    board = await startBoard({ DATA_DIR: dataDir });
    ({ load } = await loadOn(board.call, 'full'));

    load.phase('full');
    const filled = fill(filler);
    // What failed writes free again (their temporary files) is taken again.
    const readyz = await throughOutage(board.call, () => fill(filler));
    load.phase('freed');
    fs.rmSync(filler);
    const recovered = await writesWork(load, 'freed');
    const sent = await load.stop();
    showTallies(t, sent, ['before', 'full', 'freed']);
    t.diagnostic(`filler: ${filled} bytes; /readyz while full: ${counted(readyz)}`);
    t.diagnostic(`writes answered 2xx again ${recovered} ms after the filler was removed; the server warned: ${JSON.stringify([...new Set(warnings(board))])}`);
    t.diagnostic(`a 507 said: ${refusal(sent, 507)}`);
    // Comments and likes can go on for a while: SQLite reuses the room its WAL file already has.
    assertOutage(sent, 'full', 507, [['upload'], ['comment', 'like']]);
    await assertWrittenKept(board.call, load.written);
    await board.stop();
    await assertMediaClean(t, dataDir);
  } finally {
    await load?.stop();
    await board?.stop();
    if (mounted) run('umount', [mount]);
    fs.rmSync(mount, { recursive: true, force: true });
  }
});

test('a disk gone read-only: writes answer 503, reads go on; once the disk is checked and the board restarted, writes work again', {
  timeout: 120_000,
}, async (t) => {
  const problem = loopProblem();
  if (problem) return t.skip(problem);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-ro-'));
  const image = path.join(work, 'disk.img');
  const mount = path.join(work, 'mnt');
  const dataDir = path.join(mount, 'board');
  fs.mkdirSync(mount);
  fs.writeFileSync(image, '');
  fs.truncateSync(image, 32 * 1024 * 1024);
  let device: string | null = null;
  let mounted = false;
  let board: Board | null = null;
  const loads: Load[] = [];
  try {
    run('mkfs.ext4', ['-q', '-F', '-m', '0', image]);
    try {
      device = run('losetup', ['-f', '--show', image]);
    } catch (err) {
      return t.skip(`cannot attach a loop device: ${firstLine(err)}`);
    }
    // A filesystem goes read-only under open files when the kernel meets an error on one mounted so
    // (an operator's `mount -o remount,ro` is refused, EBUSY, while the database is open for writing).
    run('mount', ['-o', 'errors=remount-ro', device, mount]);
    mounted = true;
    const trigger = `/sys/fs/ext4/${path.basename(device)}/trigger_fs_error`;
    if (!fs.existsSync(trigger)) return t.skip(`the kernel has no ${trigger}`);

    board = await startBoard({ DATA_DIR: dataDir });
    const { load: before, users } = await loadOn(board.call, 'ro');
    loads.push(before);
    // A client with an API key, not used yet: its first use writes the key's time of last use.
    execFileSync(process.execPath, [path.join(ROOT, 'bin', 'imageboard.js'), 'user', 'set-tier', 'ro0', 'basic'], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
      stdio: 'ignore',
      timeout: 60_000,
    });
    const key = (await board.call('POST', '/api/user/api-keys', { cookie: users[0].cookie, body: { name: 'reader' } })).json.key;
    // What was answered so far is put on the disk before it fails: what the kernel had not written
    // yet is lost with it (SQLite's synchronous=NORMAL syncs the WAL at checkpoints only, media
    // files are not synced), as on a power cut, which this test is not about.
    await before.stop();
    run('sync', ['-f', dataDir]);
    fs.writeFileSync(trigger, 'outage test');
    assert.throws(() => fs.writeFileSync(path.join(mount, 'probe'), ''), /EROFS/, 'the filesystem is read-only');
    const readOnly = steadyLoad(board.call, users, { seed: 7000, phase: 'read-only', after: before });
    loads.push(readOnly);
    const readyz = await throughOutage(board.call);
    const byKey = await fetch(`${board.base}/api/posts?limit=5`, { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(HANG_MS) });
    assert.equal(byKey.status, 200, 'a read with an API key, whose time of last use cannot be written');
    const during = await readOnly.stop();
    showTallies(t, [...before.sent, ...during], ['before', 'read-only']);
    t.diagnostic(`/readyz while read-only: ${counted(readyz)}`);
    t.diagnostic(`the server warned: ${JSON.stringify([...new Set(warnings(board))])}`);
    t.diagnostic(`a 503 said: ${refusal(during, 503)}`);
    assertOutage(during, 'read-only', 503, [['upload'], ['comment'], ['like']]);

    // Such a filesystem is writable again only once unmounted, checked and mounted: the board stops first.
    const stopping = Date.now();
    await board.stop();
    t.diagnostic(`the board stopped in ${Date.now() - stopping} ms, exit code ${board.child.exitCode}`);
    assert.equal(board.child.exitCode, 0, 'the board stopped cleanly');
    run('umount', [mount]);
    mounted = false;
    try {
      run('e2fsck', ['-f', '-y', image]);
    } catch (err) {
      if ((err as { status?: number }).status !== 1) throw err; // 1: errors were corrected
    }
    run('mount', ['-o', 'errors=remount-ro', device, mount]);
    mounted = true;

    board = await startBoard({ DATA_DIR: dataDir });
    const restarted = steadyLoad(board.call, users, { seed: 9000, phase: 'restarted', after: before });
    loads.push(restarted);
    await writesWork(restarted, 'restarted');
    const after = await restarted.stop();
    showTallies(t, after, ['restarted']);
    assertNoHangNor500(after, 'disk');
    // As one: a later load's comments and likes are on the posts of the first.
    await assertWrittenKept(board.call, {
      posts: new Set(loads.flatMap((l) => [...l.written.posts])),
      comments: new Set(loads.flatMap((l) => [...l.written.comments])),
      likes: loads.flatMap((l) => l.written.likes),
    });
    await board.stop();
    await assertMediaClean(t, dataDir);
  } finally {
    for (const load of loads) await load.stop();
    await board?.stop();
    if (mounted) run('umount', [mount]);
    if (device) run('losetup', ['-d', device]);
    fs.rmSync(work, { recursive: true, force: true });
  }
});
