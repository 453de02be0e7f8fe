// What the outage tests share (test/outage-*.test.ts): a board as a real server process, a steady
// mixed load of readers and writers whose every answer is counted by phase (before, during and
// after an outage), and the check that every write answered 2xx is there afterwards.
import assert from 'node:assert/strict';
import { png } from './media-fixtures.ts';
import { multipart } from './multipart.ts';
import { freePort, startServer, waitFor } from './server-process.ts';

/** How long one request may take before it counts as a hang. */
export const HANG_MS = 15_000;

export interface Answer {
  status: number;
  json: any;
  headers: Headers;
}

/** A client of the board at `base`: JSON in and out, a session cookie, each request bounded by HANG_MS (then it rejects). */
export function boardClient(base: string) {
  return async (method: string, url: string, opts: { cookie?: string; body?: unknown; form?: ReturnType<typeof multipart> } = {}): Promise<Answer> => {
    const headers: Record<string, string> = opts.cookie ? { cookie: opts.cookie } : {};
    let payload: BodyInit | undefined;
    if (opts.form) {
      Object.assign(headers, opts.form.headers);
      payload = new Uint8Array(opts.form.payload);
    } else if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(opts.body);
    }
    const res = await fetch(base + url, { method, headers, body: payload, signal: AbortSignal.timeout(HANG_MS) });
    const text = await res.text();
    let json: any = null;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, json, headers: res.headers };
  };
}
export type BoardClient = ReturnType<typeof boardClient>;

/** A board started as `npm start` starts it on a free port, waited for until it listens. */
export async function startBoard(env: Record<string, string>) {
  const port = await freePort();
  const server = await startServer({ HOST: '127.0.0.1', PORT: String(port), RATE_LIMITS: 'off', LOG_LEVEL: 'info', WORKERS: '1', ...env });
  const base = `http://127.0.0.1:${port}`;
  await waitFor(() => server.out().stdout.includes('listening') || server.child.exitCode !== null, 60_000);
  assert.equal(server.child.exitCode, null, `the server started: ${server.out().stderr.slice(-1000)}`);
  const stop = async () => {
    if (server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  };
  return { ...server, port, base, call: boardClient(base), stop };
}

/** A member of the board: registers and keeps the session's cookie. */
export async function member(call: BoardClient, username: string): Promise<{ cookie: string; id: string }> {
  const answer = await call('POST', '/api/auth/register', { body: { username, password: 'a long password' } });
  assert.equal(answer.status, 201, JSON.stringify(answer.json));
  const cookie = answer.headers.get('set-cookie')?.split(';')[0];
  assert.ok(cookie, 'a session cookie');
  return { cookie, id: answer.json.user.id };
}

/** What one request of the load was, and how it was answered ('hang': no answer within HANG_MS; 'refused': no connection). */
export interface Sent {
  /** The phase it was sent and answered in; `a>b` when it was sent in one and answered in the next (counted in neither). */
  phase: string;
  what: 'read' | 'upload' | 'comment' | 'like' | 'media';
  status: number | 'hang' | 'refused';
  /** For a 503/507: its body and Retry-After, to check their shape. */
  body?: any;
  retryAfter?: string | null;
}

/** The writes the load had answered 2xx, to find afterwards. */
export interface Written {
  posts: Set<string>;
  comments: Set<string>;
  /** Each like answered 2xx: who (their session's cookie) liked which post. */
  likes: { cookie: string; post: string }[];
}

/**
 * A steady mixed load on the board: `clients` loops, each reading the list and a post, fetching a
 * thumbnail, uploading, commenting and liking in turn, one request at a time, until stopped (or
 * `maxRequests` in all). `phase` names the part of the test each request is counted in (first
 * `opts.phase`, 'before' unless given). `after`:
 * a load stopped before, whose posts and thumbnails this one reads, comments and likes too (its
 * writes stay in its own `written`); give it another `seed`, or its uploads are the same images.
 */
export function steadyLoad(
  call: BoardClient,
  users: { cookie: string }[],
  opts: { maxRequests?: number; seed?: number; phase?: string; after?: { written: Written; thumbs: string[] } } = {},
) {
  const maxRequests = opts.maxRequests ?? 20_000;
  const sent: Sent[] = [];
  const written: Written = { posts: new Set(), comments: new Set(), likes: [] };
  const state = { phase: opts.phase ?? 'before', stopping: false };
  let seed = opts.seed ?? 5000;
  const known = [...(opts.after?.written.posts ?? [])];
  const thumbs: string[] = [...(opts.after?.thumbs ?? [])];

  const once = async (what: Sent['what'], run: () => Promise<Answer>, onOk: (a: Answer) => void) => {
    const phase = state.phase;
    let status: Sent['status'];
    let answer: Answer | null = null;
    try {
      answer = await run();
      status = answer.status;
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      status = e.name === 'TimeoutError' ? 'hang' : 'refused';
      if (status === 'refused' && e.cause?.code !== 'ECONNREFUSED' && e.cause?.code !== 'ECONNRESET' && e.cause?.code !== 'UND_ERR_SOCKET') status = 'hang';
    }
    const record: Sent = { phase: state.phase === phase ? phase : `${phase}>${state.phase}`, what, status };
    if (answer && (answer.status === 503 || answer.status === 507)) Object.assign(record, { body: answer.json, retryAfter: answer.headers.get('retry-after') });
    sent.push(record);
    if (answer && answer.status >= 200 && answer.status < 300) onOk(answer);
  };

  const loop = async (user: { cookie: string }, k: number) => {
    for (let i = k; !state.stopping && sent.length < maxRequests; i++) {
      const posts = [...known, ...written.posts];
      const post = posts[(i * 7 + k) % Math.max(1, posts.length)];
      switch (i % 5) {
        case 0:
          await once(
            'read',
            () => call('GET', '/api/posts?limit=10', user),
            (a) => {
              // A list names a post's thumbnail `thumbnail` (an upload's answer, `thumbnailUrl`).
              for (const p of a.json.posts ?? []) if (p.thumbnail && thumbs.length < 50) thumbs.push(p.thumbnail);
            },
          );
          break;
        case 1: {
          const image = await png(seed++, 48, 32);
          await once(
            'upload',
            () => call('POST', '/api/upload', { ...user, form: multipart({ tags: `outage load_${k}` }, [{ filename: 'x.png', data: image }]) }),
            (a) => {
              written.posts.add(a.json.post.id);
              if (a.json.post.thumbnailUrl) thumbs.push(a.json.post.thumbnailUrl);
            },
          );
          break;
        }
        case 2:
          if (post)
            await once(
              'comment',
              () => call('POST', '/api/comments', { ...user, body: { postId: post, content: `comment ${i}` } }),
              (a) => written.comments.add(a.json.comment?.id ?? a.json.id),
            );
          break;
        case 3:
          if (post)
            await once(
              'like',
              () => call('PUT', `/api/posts/${post}/like`, user),
              () => written.likes.push({ cookie: user.cookie, post }),
            );
          break;
        default: {
          const thumb = thumbs[i % Math.max(1, thumbs.length)];
          if (thumb)
            await once(
              'media',
              () => call('GET', thumb),
              () => {},
            );
          else
            await once(
              'read',
              () => call('GET', `/api/posts/${post ?? 1}`, user),
              () => {},
            );
        }
      }
      // Requests that fail fast (a refused connection) would otherwise spin.
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  const running = users.map((u, k) => loop(u, k));
  return {
    sent,
    written,
    thumbs,
    /** From now on, requests count in this phase. */
    phase(name: string) {
      state.phase = name;
    },
    async stop(): Promise<Sent[]> {
      state.stopping = true;
      await Promise.all(running);
      return sent;
    },
  };
}

/** How the requests of a phase were answered: `{ '200': n, '503': m, hang: k }`. */
export function tally(sent: Sent[], phase: string, what?: Sent['what']): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of sent) if (s.phase === phase && (what === undefined || s.what === what)) out[s.status] = (out[s.status] ?? 0) + 1;
  return out;
}

/** Asserts that no request of the load hung or got a 500, and that every 503/507 said what was missing and when to come back. */
export function assertNoHangNor500(sent: Sent[], dependency: string | string[]): void {
  const bad = sent.filter((s) => s.status === 'hang' || s.status === 500 || s.status === 'refused');
  assert.deepEqual(bad, [], 'no request hung, was refused or got a 500');
  const allowed = [dependency].flat();
  for (const s of sent.filter((x) => x.status === 503 || x.status === 507)) {
    assert.ok(allowed.includes(s.body?.unavailable), `a ${s.status} names ${allowed.join(' or ')}: ${JSON.stringify(s.body)}`);
    assert.equal(s.body?.status, s.status);
    assert.equal(typeof s.body?.error, 'string');
    assert.match(s.retryAfter ?? '', /^\d+$/, 'with Retry-After');
  }
}

/** Every write the load had answered 2xx is found: each post with its original and thumbnail, each comment, each like. */
export async function assertWrittenKept(call: BoardClient, written: Written): Promise<void> {
  for (const id of written.posts) {
    const res = await call('GET', `/api/posts/${id}`);
    assert.equal(res.status, 200, `post ${id} kept`);
    const post = res.json.post ?? res.json;
    for (const url of [post.imageUrl, post.thumbnailUrl].filter(Boolean)) assert.equal((await call('GET', url)).status, 200, `${url} of post ${id}`);
    const comments = await call('GET', `/api/posts/${id}/comments`);
    for (const c of comments.json?.comments ?? []) written.comments.delete(c.id);
  }
  assert.deepEqual([...written.comments], [], 'every comment answered 201 is found under its post');
  for (const like of written.likes) {
    const res = await call('GET', `/api/posts/${like.post}`, { cookie: like.cookie });
    assert.equal((res.json.post ?? res.json).liked, true, `the like of post ${like.post} kept`);
  }
}

/** Waits until `check` holds, polling every 100 ms; returns how long it took. */
export async function within(ms: number, what: string, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check().catch(() => false))) {
    assert.ok(Date.now() - started < ms, `${what} within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return Date.now() - started;
}
