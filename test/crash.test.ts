// SIGKILL during concurrent uploads, comments, likes and favorites, three times over: nothing answered
// 2xx is lost, and after a restart no orphan or temp file, no row without its media, and every
// stored count equals the rows it counts.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import { buildServer } from '../scripts/build-server.mjs';
import { testConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { LocalMediaStore } from '../src/storage/local.ts';
import { checkMedia } from '../src/modules/uploads/media-check.ts';
import { png } from './media-fixtures.ts';
import { multipart } from './multipart.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const KILLS = 3;
const CLIENTS = 6;

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise((r) => srv.close(r));
  return port;
}

async function start(entry: string, dataDir: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [entry], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: '',
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      RATE_LIMITS: 'off',
      LOG_LEVEL: 'info',
      WORKERS: '1',
      SHUTDOWN_DELAY_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const end = Date.now() + 60_000;
  while (!out.includes('listening')) {
    assert.ok(Date.now() < end && child.exitCode === null, `the server started: ${out.slice(-500)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return child;
}

interface Answered {
  posts: Set<string>;
  comments: Map<string, string>; // comment id -> post id
  likes: Set<string>; // `${user}:${post}`
  favorites: Set<string>;
}

function client(base: string) {
  return async (method: string, url: string, cookie?: string, body?: unknown, form?: { payload: Buffer; headers: Record<string, string> }) => {
    const headers: Record<string, string> = cookie ? { cookie } : {};
    let payload: BodyInit | undefined;
    if (form) {
      Object.assign(headers, form.headers);
      payload = new Uint8Array(form.payload);
    } else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const res = await fetch(base + url, { method, headers, body: payload, signal: AbortSignal.timeout(30_000) });
    return { status: res.status, json: (await res.json().catch(() => null)) as any, cookie: res.headers.get('set-cookie')?.split(';')[0] };
  };
}

/** One client's mixed writes until the server dies: uploads, comments, likes, favorites. */
async function writer(call: ReturnType<typeof client>, cookie: string, userId: string, images: Buffer[], answered: Answered): Promise<number> {
  let done = 0;
  for (let i = 0; ; i++) {
    const known = [...answered.posts];
    const post = known[(i * 7 + Number(userId)) % known.length];
    try {
      const op = i % 4;
      if (op === 0 && images.length > 0) {
        const res = await call('POST', '/api/upload', cookie, undefined, multipart({ tags: `crash,u${userId}` }, [{ filename: 'x.png', data: images.pop()! }]));
        if (res.status === 201) answered.posts.add(res.json.post.id);
      } else if (op === 1) {
        const res = await call('POST', '/api/comments', cookie, { postId: post, content: `comment ${i} by ${userId}` });
        if (res.status === 201) answered.comments.set(res.json.comment?.id ?? res.json.id, post);
      } else if (op === 2) {
        const res = await call('PUT', `/api/posts/${post}/like`, cookie);
        if (res.status < 300) answered.likes.add(`${userId}:${post}`);
      } else {
        const res = await call('PUT', `/api/posts/${post}/favorite`, cookie);
        if (res.status < 300) answered.favorites.add(`${userId}:${post}`);
      }
      done++;
    } catch {
      return done; // the server was killed
    }
  }
}

test('SIGKILL during concurrent writes loses nothing answered 2xx and leaves nothing behind', { timeout: 300_000 }, async (t) => {
  const entry = await buildServer();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-crash-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const call = client(base);
  const answered: Answered = { posts: new Set(), comments: new Map(), likes: new Set(), favorites: new Set() };
  const images: Buffer[] = [];
  for (let s = 0; s < 10 * KILLS * CLIENTS; s++) images.push(await png(1000 + s, 96, 64));

  let server = await start(entry, dataDir, port);
  const users: { cookie: string; id: string }[] = [];
  for (let u = 0; u < CLIENTS; u++) {
    const res = await call('POST', '/api/auth/register', undefined, { username: `crash${u}`, password: 'a long password' });
    assert.equal(res.status, 201);
    users.push({ cookie: res.cookie!, id: res.json.user.id });
  }
  const first = await call('POST', '/api/upload', users[0].cookie, undefined, multipart({ tags: 'crash' }, [{ filename: 'x.png', data: images.pop()! }]));
  assert.equal(first.status, 201);
  answered.posts.add(first.json.post.id);

  let writes = 0;
  try {
    for (let k = 0; k < KILLS; k++) {
      const running = users.map((u) => writer(call, u.cookie, u.id, images, answered));
      await new Promise((r) => setTimeout(r, 600 + 400 * k));
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGKILL');
      await exited;
      writes += (await Promise.all(running)).reduce((a, b) => a + b, 0);
      server = await start(entry, dataDir, port);
    }

    // Everything answered 2xx is there, with its media.
    for (const id of answered.posts) {
      const res = await call('GET', `/api/posts/${id}`);
      assert.equal(res.status, 200, `post ${id}`);
      for (const url of [res.json.imageUrl ?? res.json.post?.imageUrl, res.json.thumbnailUrl ?? res.json.post?.thumbnailUrl].filter(Boolean)) {
        assert.equal((await fetch(base + url)).status, 200, url);
      }
    }
  } finally {
    const exited = new Promise((r) => server.once('exit', r));
    server.kill('SIGTERM');
    await exited;
  }

  const database = await openDatabase({ url: '', dataDir });
  try {
    const db = database;
    const ids = (rows: { id: number | string }[]) => new Set(rows.map((r) => String(r.id)));
    const comments = ids(await db.selectFrom('comments').select('id').execute());
    for (const id of answered.comments.keys()) assert.ok(comments.has(String(id)), `comment ${id} kept`);
    const pairs = async (table: 'likes' | 'favorites') =>
      new Set((await db.selectFrom(table).select(['user_id', 'post_id']).execute()).map((r) => `${r.user_id}:${r.post_id}`));
    const likes = await pairs('likes');
    for (const p of answered.likes) assert.ok(likes.has(p), `like ${p} kept`);
    const favorites = await pairs('favorites');
    for (const p of answered.favorites) assert.ok(favorites.has(p), `favorite ${p} kept`);

    // Every stored count equals the rows it counts.
    const drift = await sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM posts p WHERE
        p.like_count <> (SELECT COUNT(*) FROM likes l WHERE l.post_id = p.id) OR
        p.favorite_count <> (SELECT COUNT(*) FROM favorites f WHERE f.post_id = p.id) OR
        p.comment_count <> (SELECT COUNT(*) FROM comments c WHERE c.post_id = p.id)`.execute(db);
    assert.equal(Number(drift.rows[0].n), 0, 'post counts');
    const tagDrift = await sql<{ n: number }>`
      SELECT COUNT(*) AS n FROM tags t WHERE t.post_count <> (SELECT COUNT(*) FROM post_tags pt WHERE pt.tag_id = t.id)`.execute(db);
    assert.equal(Number(tagDrift.rows[0].n), 0, 'tag counts');
    const total = await db
      .selectFrom('posts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const counted = await db.selectFrom('counters').select('value').where('name', '=', 'posts').executeTakeFirst();
    assert.equal(Number(counted?.value ?? 0), Number(total.n), 'the posts counter');

    // No orphan file, no temp file, no row without its media: a check with no grace period finds nothing.
    const config = testConfig({ dataDir, mediaGraceMinutes: 0 });
    const media = new LocalMediaStore(path.join(dataDir, 'media'));
    const report = await checkMedia({ db, config, clock: { now: () => Date.now() }, media, startedAt: Date.now() }, false);
    assert.deepEqual(report.rowsWithoutFiles, []);
    assert.deepEqual(report.filesWithoutRows, []);
    assert.deepEqual(report.missingThumbnails, []);
    t.diagnostic(
      `${KILLS} kills survived: ${writes} writes answered, ${answered.posts.size} posts, ${answered.comments.size} comments, ${answered.likes.size} likes, ${answered.favorites.size} favorites kept; ${report.filesChecked} files, 0 orphans`,
    );
  } finally {
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
