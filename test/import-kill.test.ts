// `imageboard import folder` killed with SIGKILL three times while it writes, then run to the end
// and once more, as a separate process beside the board (issue 57, points 4 and 6): the board ends
// with each file once, with all its tags and one import record, no media file without its post and
// no temporary file; the run after the kills finishes what they left, and the last one adds nothing.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { checkMedia } from '../src/modules/uploads/media-check.ts';
import { type Ctx, commandEnv, eachDatabase, storedMedia, tmpFiles } from './helpers.ts';
import { countPosts, reportLines, summaryCounts } from './import-helpers.ts';
import { png } from './media-fixtures.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const FILES = 80;
/** Each killed run is killed once it has added this many posts, then after a pause of its own, so the kills land at different steps of a post. */
const KILLS = [
  { posts: 4, pauseMs: 0 },
  { posts: 7, pauseMs: 45 },
  { posts: 7, pauseMs: 130 },
];
/**
 * How long a run may take to reach its next mark. The import runs at IMPORT_NICE, so beside two
 * busy test files it gets a tenth of a core or less: the bound is for a hang, not for speed.
 */
const RUN_MS = 150_000;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// The folder, made once for both engines' passes (the import only reads it): FILES distinct PNGs
// in two subfolders, each with a .txt sidecar of tags, half named `<file>.txt`, half `<name>.txt`.
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-import-kill-'));
after(() => fs.rmSync(folder, { recursive: true, force: true }));
const source = path.join(folder, 'gallery');
/** The tags each file's post must end with (`name:category`, sorted), by the file's sha256. */
const expected = new Map<string, string[]>();
for (let i = 0; i < FILES; i++) {
  const bytes = await png(7000 + i, 400, 300);
  const name = `img_${String(i).padStart(3, '0')}`;
  const dir = path.join(source, i % 2 ? 'odd' : 'even');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `${name}.png`), bytes);
  const sidecar = i % 4 < 2 ? `${name}.png.txt` : `${name}.txt`;
  fs.writeFileSync(path.join(dir, sidecar), `artist:painter_${i % 6}\ncharacter:figure_${i}\nrating:safe\nkill_test\nshade_${i % 5}\n`);
  expected.set(sha256(bytes), [`figure_${i}:character`, 'kill_test:general', `painter_${i % 6}:artist`, `shade_${i % 5}:general`].sort());
}
assert.equal(expected.size, FILES, 'the fixtures are distinct files');

interface Run {
  child: ChildProcess;
  output(): string;
  /** Resolves when the process has exited (and been reaped): its code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const running = new Set<ChildProcess>();
after(() => {
  for (const child of running) child.kill('SIGKILL');
});

function startImport(env: Record<string, string>, report: string): Run {
  const args = ['bin/imageboard.js', 'import', 'folder', source, '--report', report, '--concurrency', '3'];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, output: () => out, exited };
}

/** Waits for the run to end by itself, at most RUN_MS. */
async function finished(run: Run, what: string) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), RUN_MS)));
  const ended = await Promise.race([run.exited, late]);
  clearTimeout(timer);
  if (!ended) {
    run.child.kill('SIGKILL');
    assert.fail(`${what} did not end within ${RUN_MS / 1000} s:\n${run.output()}`);
  }
  return { ...ended, out: run.output() };
}

/** The nice values of a process's threads (field 19 of /proc/<pid>/task/<tid>/stat). */
function nicenessOf(pid: number): number[] {
  return fs.readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

/** Each post's stored files: original, thumbnail and preview. */
async function mediaOfPosts(ctx: Ctx): Promise<string[][]> {
  const rows = await ctx.database.selectFrom('posts').select(['file_path', 'thumb_path', 'preview_path']).execute();
  return rows.map((p) => [p.file_path, p.thumb_path, p.preview_path].filter((x): x is string => x !== null));
}

eachDatabase('import folder killed with SIGKILL', (ctx) => {
  let reports: string;
  let env: Record<string, string>;

  before(async () => {
    reports = fs.mkdtempSync(path.join(folder, 'reports-'));
    env = { ...(await commandEnv(ctx)), LOG_LEVEL: 'error' };
  });

  test(`killed ${KILLS.length} times, then run to the end and once more: each file once with its tags and record, no orphan or temp file`, {
    timeout: 5 * RUN_MS,
  }, async (t) => {
    const started = Date.now();
    const left: string[] = [];
    let leftovers = 0;
    for (const [k, kill] of KILLS.entries()) {
      const before = await countPosts(ctx);
      const run = startImport(env, path.join(reports, `killed-${k + 1}.jsonl`));
      const deadline = Date.now() + RUN_MS;
      while ((await countPosts(ctx)) < before + kill.posts) {
        assert.equal(run.child.exitCode, null, `run ${k + 1} ended before it was killed:\n${run.output()}`);
        assert.ok(Date.now() < deadline, `run ${k + 1} added ${kill.posts} posts within ${RUN_MS / 1000} s:\n${run.output()}`);
        await sleep(10);
      }
      if (k === 0) {
        const nice = nicenessOf(run.child.pid!);
        assert.ok(
          nice.every((n) => n >= 10),
          `every thread of the import yields the CPU to the board (IMPORT_NICE): nice ${nice}`,
        );
      }
      await sleep(kill.pauseMs);
      assert.ok(run.child.kill('SIGKILL'), `run ${k + 1} was still running to be killed:\n${run.output()}`);
      assert.equal((await run.exited).signal, 'SIGKILL', run.output());
      const temp = tmpFiles(ctx).length;
      const claimed = new Set((await mediaOfPosts(ctx)).flat());
      const orphans = (await storedMedia(ctx)).filter((rel) => !claimed.has(rel)).length;
      leftovers += temp + orphans;
      left.push(`kill ${k + 1} at ${await countPosts(ctx)} posts: ${temp} temp files and journals, ${orphans} media files without a post`);
    }
    assert.ok(leftovers > 0, `a kill caught a post mid-write, leaving files for the next run to clear: ${left.join('; ')}`);
    const killedAt = await countPosts(ctx);
    assert.ok(killedAt < FILES, `the kills cut the import short (${killedAt} of ${FILES} posts)`);

    // The run after the kills: what they committed is found as imported before, the rest comes in.
    const rest = await finished(startImport(env, path.join(reports, 'rest.jsonl')), 'the run after the kills');
    assert.equal(rest.code, 0, rest.out);
    assert.deepEqual(summaryCounts(rest.out), { imported: FILES - killedAt, matched: 0, skipped: killedAt, failed: 0, unreadable: 0, read: FILES }, rest.out);

    // And once more: nothing to add.
    const again = await finished(startImport(env, path.join(reports, 'again.jsonl')), 'the second full run');
    assert.equal(again.code, 0, again.out);
    assert.deepEqual(summaryCounts(again.out), { imported: 0, matched: 0, skipped: FILES, failed: 0, unreadable: 0, read: FILES }, again.out);
    const lines = reportLines(fs.readFileSync(path.join(reports, 'again.jsonl'), 'utf8'));
    assert.deepEqual(
      lines.map((l) => l.status),
      Array(FILES).fill('skipped'),
      'the report of the last run: every file imported before',
    );

    // Each file once, with every tag of its sidecar.
    const posts = await ctx.database.selectFrom('posts').select(['id', 'sha256', 'content_rating']).execute();
    assert.equal(posts.length, FILES, 'one post a file');
    assert.equal(new Set(posts.map((p) => p.sha256)).size, FILES, 'no file twice');
    assert.deepEqual(posts.map((p) => p.sha256).sort(), [...expected.keys()].sort(), 'the posts are the files');
    const tags = await ctx.database.selectFrom('post_tags').innerJoin('tags', 'tags.id', 'post_tags.tag_id').select(['post_id', 'name', 'category']).execute();
    for (const p of posts) {
      const own = tags
        .filter((r) => r.post_id === p.id)
        .map((r) => `${r.name}:${r.category}`)
        .sort();
      assert.deepEqual(own, expected.get(p.sha256), `the tags of post ${p.id}`);
      assert.equal(p.content_rating, 'safe', `the rating of post ${p.id}`);
    }

    // Counts the board shows: each tag's posts, and the posts in all.
    const counts = await ctx.database.selectFrom('tags').select(['name', 'post_count']).where('post_count', '>', 0).execute();
    const linked = new Map<string, number>();
    for (const r of tags) linked.set(r.name, (linked.get(r.name) ?? 0) + 1);
    assert.deepEqual(new Map(counts.map((c) => [c.name, Number(c.post_count)])), linked, "each tag's post count is its posts");
    const counter = await ctx.database.selectFrom('counters').select('value').where('name', '=', 'posts').executeTakeFirst();
    assert.equal(Number(counter?.value), FILES, 'the posts counter');

    // One import record a post, naming it by its bytes (a .txt sidecar names no origin).
    const records = await ctx.database.selectFrom('import_records').selectAll().where('kind', '=', 'post').execute();
    assert.equal(records.length, FILES, 'one import record a post');
    const shaOf = new Map(posts.map((p) => [p.id, p.sha256]));
    assert.deepEqual(
      records.map((r) => `${r.origin}:${r.origin_id}`).sort(),
      records.map((r) => `file:${shaOf.get(r.local_id)}`).sort(),
      'each record names its post and the post its file',
    );
    assert.equal(new Set(records.map((r) => r.local_id)).size, FILES, 'no post recorded twice');

    // No media file without its post, none missing, nothing in DATA_DIR/tmp.
    const media = await mediaOfPosts(ctx);
    assert.ok(
      media.every((files) => files.length === 3),
      'every post has its original, thumbnail and preview',
    );
    assert.deepEqual(await storedMedia(ctx), media.flat().sort(), 'the stored media are the posts’ files, each once');
    const check = await checkMedia({ ...ctx.app.deps, config: { ...ctx.app.deps.config, mediaGraceMinutes: 0 } }, false);
    assert.deepEqual([check.rowsWithoutFiles, check.filesWithoutRows, check.missingThumbnails], [[], [], []], 'imageboard media check finds nothing');
    assert.deepEqual(tmpFiles(ctx), [], 'no temporary file or media journal left');

    // And the board, serving all along, lists them.
    const page = await ctx.app.inject({ url: '/api/posts?limit=100&tag=kill_test' });
    assert.equal(page.statusCode, 200, page.body);
    const listed = page.json() as { totalPosts: number; posts: { tags: string[] }[] };
    assert.equal(listed.totalPosts, FILES);
    assert.equal(listed.posts.length, FILES);
    t.diagnostic(`${left.join('; ')}; the last two runs and the checks done, ${((Date.now() - started) / 1000).toFixed(1)} s in all`);
  });
});
