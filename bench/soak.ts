// A mixed read and write load against the real server (`npm start`'s build, rate limits off):
// reads of every kind, likes, favorites, comments and uploads from signed-in users, at 64
// connections for 60 s. Passes with 0 errors and the server's memory flat: the mean RSS of the
// last 10 s within 20% of the first 10 s. Loopback only; bounded in time and in count.
//   node --import tsx bench/soak.ts [--seconds 60] [--connections 64] [--posts 5000]
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { assertLoopback } from './load.ts';
import { processTree, rssOf } from './rss.ts';
import { ROOT, startServer } from './server.ts';
import { makePngs } from './uploads.ts';

const autocannon = createRequire(import.meta.url)('autocannon') as any;

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    connections: { type: 'string', default: '64' },
    posts: { type: 'string', default: '5000' },
    uploads: { type: 'string', default: '400' },
  },
});
const seconds = Math.min(600, Number(values.seconds));
const connections = Math.min(256, Number(values.connections));

interface Req {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

const pick = <T>(xs: T[]): T => xs[Math.floor(Math.random() * xs.length)];

async function register(origin: string): Promise<string> {
  const res = await fetch(`${origin}/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: `soak_${randomBytes(5).toString('hex')}`, password: randomBytes(12).toString('hex') }),
  });
  if (res.status !== 201) throw new Error(`register answered ${res.status}: ${await res.text()}`);
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('ib_session='))!;
}

function multipart(png: Buffer, title: string): { body: Buffer; type: string } {
  const b = `----soak${randomBytes(8).toString('hex')}`;
  const head =
    `--${b}\r\nContent-Disposition: form-data; name="title"\r\n\r\n${title}\r\n` +
    `--${b}\r\nContent-Disposition: form-data; name="tags"\r\n\r\nsoak, upload\r\n` +
    `--${b}\r\nContent-Disposition: form-data; name="file"; filename="${title}.png"\r\nContent-Type: image/png\r\n\r\n`;
  return { body: Buffer.concat([Buffer.from(head), png, Buffer.from(`\r\n--${b}--\r\n`)]), type: `multipart/form-data; boundary=${b}` };
}

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imageboard-soak-'));
  const posts = Number(values.posts);
  console.log(`seeding ${posts} posts into ${dataDir}`);
  execFileSync(process.execPath, [path.join(ROOT, 'bin', 'imageboard.js'), 'seed', '--posts', String(posts), '--no-media'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const server = await startServer({ dataDir, databaseUrl: '', workers: 1 });
  const origin = server.origin;
  assertLoopback(origin);
  try {
    const cookies = await Promise.all(Array.from({ length: 16 }, () => register(origin)));
    const tags = ((await (await fetch(`${origin}/api/tags?limit=100`)).json()) as { tags: { name: string }[] }).tags.map((t) => t.name);
    const users = ((await (await fetch(`${origin}/api/posts?limit=100`)).json()) as { posts: { author: { username: string } }[] }).posts.map(
      (p) => p.author.username,
    );
    const pngs = await makePngs(Number(values.uploads), 48);
    const postId = () => String(1 + Math.floor(Math.random() * posts));
    let uploadsLeft = pngs.length;

    const reads: (() => Req)[] = [
      () => ({ method: 'GET', path: `/api/posts?offset=${Math.floor(Math.random() * 2000)}` }),
      () => ({ method: 'GET', path: `/api/posts?tag=${encodeURIComponent(pick(tags))}` }),
      () => ({ method: 'GET', path: `/api/posts?search=${encodeURIComponent(pick(tags).slice(0, 4))}&sortBy=most_liked` }),
      () => ({ method: 'GET', path: `/api/posts/${postId()}` }),
      () => ({ method: 'GET', path: `/api/posts/${postId()}/comments` }),
      () => ({ method: 'GET', path: `/api/tags?search=${encodeURIComponent(pick(tags).slice(0, 2))}` }),
      () => ({ method: 'GET', path: `/api/users/${encodeURIComponent(pick(users))}` }),
      () => ({ method: 'GET', path: '/api/stats' }),
    ];
    const writes: (() => Req)[] = [
      () => ({ method: Math.random() < 0.6 ? 'PUT' : 'DELETE', path: `/api/posts/${postId()}/like`, headers: { cookie: pick(cookies) } }),
      () => ({ method: Math.random() < 0.6 ? 'PUT' : 'DELETE', path: `/api/posts/${postId()}/favorite`, headers: { cookie: pick(cookies) } }),
      () => ({
        method: 'POST',
        path: '/api/comments',
        headers: { cookie: pick(cookies), 'content-type': 'application/json' },
        body: JSON.stringify({ postId: postId(), content: `soak ${randomBytes(6).toString('hex')}` }),
      }),
      () => {
        if (uploadsLeft === 0) return pick(reads)();
        const m = multipart(pngs[--uploadsLeft], `soak-${uploadsLeft}`);
        return { method: 'POST', path: '/api/upload', headers: { cookie: pick(cookies), 'content-type': m.type }, body: m.body };
      },
    ];
    const next = (): Req => (Math.random() < 0.7 ? pick(reads) : pick(writes))();

    const statuses: Record<string, number> = {};
    const samples: { t: number; rss: number }[] = [];
    const started = performance.now();
    const sampler = setInterval(() => {
      samples.push({ t: (performance.now() - started) / 1000, rss: processTree(server.pid).reduce((s, p) => s + rssOf(p), 0) });
    }, 250);
    const instance = autocannon({
      url: origin,
      connections,
      duration: seconds,
      maxOverallRequests: seconds * 50_000,
      timeout: 20,
      requests: [{ setupRequest: (req: any) => ({ ...req, ...next() }) }],
    });
    instance.on('response', (_c: unknown, status: number) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
    });
    const guard = setTimeout(() => instance.stop(), (seconds + 60) * 1000);
    const r: any = await instance;
    clearTimeout(guard);
    clearInterval(sampler);

    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    const first = mean(samples.filter((s) => s.t < 10).map((s) => s.rss));
    const last = mean(samples.filter((s) => s.t >= seconds - 10 && s.t <= seconds).map((s) => s.rss));
    const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
    const errors = Number(r.errors) + Number(r.timeouts) + Number(r.non2xx);
    const drift = last / first - 1;
    console.log(`machine: ${os.cpus()[0]?.model ?? 'unknown'}, ${os.cpus().length} cores`);
    console.log(
      `${r.requests.total} requests in ${seconds} s at ${connections} connections (${Math.round(r.requests.average)} req/s), ${pngs.length - uploadsLeft} uploads`,
    );
    console.log(`statuses: ${JSON.stringify(statuses)}; errors ${r.errors}, timeouts ${r.timeouts}, non-2xx ${r.non2xx}`);
    console.log(`latency p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms`);
    console.log(
      `server RSS: first 10 s ${mb(first)}, last 10 s ${mb(last)} (${(drift * 100).toFixed(1)}%), peak ${mb(Math.max(...samples.map((s) => s.rss)))}`,
    );
    const ok = errors === 0 && Math.abs(drift) <= 0.2;
    console.log(ok ? 'PASS' : 'FAIL');
    process.exitCode = ok ? 0 : 1;
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
