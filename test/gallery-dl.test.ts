// gallery-dl 1.25.3 (Debian's package), the client most people would point at the board, set up as
// docs/clients.md tells them: a custom "Danbooru" instance, the API key as Basic auth password,
// retry-codes [429]. It must page a 250-post tag search past its 200-post batches, fetch one post
// and one pool, and save every file byte for byte as it was uploaded (issue 23, point 8).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { buildApp, type App } from '../src/app.ts';
import { testConfig } from '../src/config.ts';
import { createKeyOk, register, setAccount, type Account } from './auth-helpers.ts';
import { TestClock } from './helpers.ts';
import { png } from './media-fixtures.ts';
import { GALLERY_DL, galleryDlMissing } from './gallery-dl-tool.ts';
import { multipart } from './multipart.ts';

const TAG = 'gdl_sample';
const POSTS = 250;
const POOL_SIZE = 5;
const MINUTE = 60_000;

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** Every file under a directory, by the post id in gallery-dl's name for it (`ourboard_<id>_<name>.<ext>`). */
function downloaded(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const rel of fs.readdirSync(dir, { recursive: true }).map(String)) {
    const file = path.join(dir, rel);
    if (!fs.statSync(file).isFile()) continue;
    const id = /^ourboard_(\d+)_/.exec(path.basename(file))?.[1];
    assert.ok(id, `gallery-dl named a file ${rel}`);
    files.set(id, sha256(fs.readFileSync(file)));
  }
  return files;
}

interface Logged {
  line: string;
  url: string;
  status: number;
  byKey: boolean;
  /** X-RateLimit-Limit: the tightest window the request counted in. */
  limit: string | undefined;
}

// Without gallery-dl the suite is one skipped test saying why, as the browser suites do without
// Chromium; CI installs it (.ci/run), so there a missing gallery-dl fails instead of skipping.
const missing = galleryDlMissing();
if (missing && !process.env.CI) test('gallery-dl downloads from the board as a Danbooru instance', { skip: missing }, () => {});
else {
  describe('gallery-dl downloads from the board as a Danbooru instance', { timeout: 300_000 }, () => {
    let app: App;
    let root: string;
    let dataDir: string;
    let work: string;
    let alice: Account;
    let key: string;
    const clock = new TestClock();
    const uploaded = new Map<string, string>(); // post id -> sha256 of the bytes sent
    let poolId: string;
    let poolPosts: string[];
    const log: Logged[] = [];

    before(async () => {
      assert.equal(missing, null, 'CI installs gallery-dl (.ci/run); a run there without it must fail, not skip');
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'imageboard-gdl-'));
      work = fs.mkdtempSync(path.join(os.tmpdir(), 'imageboard-gdl-out-'));
      // Rate limits on, as in production: the documented settings (sleep-request 0 for a one-off
      // run, retry-codes [429]) must get a 250-post search through our real windows. The test clock
      // only moves between upload batches (10 uploads a minute per user), never during a download.
      app = await buildApp(testConfig({ dataDir, databaseUrl: '', rateLimits: true }), { clock });
      app.addHook('onResponse', async (req, reply) => {
        const byKey = req.authMethod === 'key';
        log.push({
          url: req.url,
          status: reply.statusCode,
          byKey,
          limit: reply.getHeader('x-ratelimit-limit')?.toString(),
          line: `${req.method} ${req.url} ${reply.statusCode}${byKey ? ' key' : ''} ${req.headers['user-agent'] ?? ''}`,
        });
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      root = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;

      alice = await register(app, 'alice');
      await setAccount(app.deps.db, 'alice', { tier: 'pro' }); // free accounts may hold no API key
      key = (await createKeyOk(app, alice.headers, 'gallery-dl')).key;

      for (let batch = 0; batch < POSTS / 10; batch++) {
        await Promise.all(
          Array.from({ length: 10 }, async (_, i) => {
            const data = await png(batch * 10 + i + 1, 16, 12);
            const m = multipart({ tags: TAG }, [{ filename: 'a.png', contentType: 'image/png', data }]);
            const res = await app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...alice.headers } });
            assert.equal(res.statusCode, 201, res.body);
            uploaded.set(String(res.json().post.id), sha256(data));
          }),
        );
        clock.advance(MINUTE);
      }
      assert.equal(new Set(uploaded.values()).size, POSTS, 'every upload is a distinct file');

      poolPosts = [...uploaded.keys()].slice(0, POOL_SIZE);
      const pool = await app.inject({
        method: 'POST',
        url: '/api/pools',
        headers: alice.headers,
        payload: { name: 'gdl pool', isPublic: true, postIds: poolPosts },
      });
      assert.equal(pool.statusCode, 201, pool.body);
      poolId = String(pool.json().pool._id);
    });

    after(async () => {
      await app?.close();
      for (const dir of [dataDir, work]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    /** Runs gallery-dl on one URL of the board into its own directory; returns its files and the requests it made. */
    async function galleryDl(name: string, url: string) {
      const dir = path.join(work, name);
      const config = path.join(work, `${name}.json`);
      fs.writeFileSync(
        config,
        JSON.stringify({
          extractor: {
            Danbooru: { ourboard: { root } },
            ourboard: { username: alice.username, password: key, 'sleep-request': 0, 'retry-codes': [429] },
          },
          cache: { file: null },
        }),
      );
      const first = log.length;
      // Loopback only: no proxy from the environment, no user config, a HOME of its own.
      const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: work, LANG: 'C.UTF-8', NO_PROXY: '*', no_proxy: '*' };
      const args = ['--config-ignore', '-c', config, '-d', dir, '--no-part', '-v', url];
      const run = await promisify(execFile)(GALLERY_DL, args, { env, timeout: 120_000, maxBuffer: 16 << 20 }).catch((err) => err);
      const requests = log.slice(first);
      const why = `gallery-dl ${args.join(' ')} exited ${run.code ?? 0}\n${String(run.stderr).slice(-3000)}\nrequests:\n${requests.map((r) => r.line).join('\n')}`;
      assert.equal(run.code ?? 0, 0, why);
      // Every API request came with the key (Basic auth is the only way gallery-dl sends it) and
      // counted in the key user's per-minute window (50 list requests) of the real limits.
      const api = requests.filter((r) => !r.url.startsWith('/media/'));
      assert.ok(api.length > 0, why);
      for (const r of api) assert.ok(r.byKey && r.status === 200 && r.limit === '50', `${r.line} limit=${r.limit}\n${why}`);
      return { files: fs.existsSync(dir) ? downloaded(dir) : new Map<string, string>(), requests, why };
    }

    /** Each file is the upload of the post gallery-dl named it after. */
    function assertSame(files: Map<string, string>, ids: string[], why: string) {
      assert.deepEqual([...files.keys()].sort(), [...ids].sort(), why);
      for (const [id, hash] of files) assert.equal(hash, uploaded.get(id), `post ${id}: the downloaded file differs from the upload`);
    }

    test(`a tag search of ${POSTS} posts: every one, paging past 200 with page=b<id>`, async () => {
      const { files, requests, why } = await galleryDl('tag', `${root}/posts?tags=${TAG}`);
      const lists = requests.filter((r) => r.url.startsWith('/posts.json'));
      assert.equal(lists.length, 2, why);
      assert.match(lists[0].url, /[?&]limit=200(&|$)/, why);
      assert.match(lists[1].url, /[?&]page=b\d+(&|$)/, why);
      assertSame(files, [...uploaded.keys()], why);
    });

    test('one post', async () => {
      const id = [...uploaded.keys()][POSTS - 1];
      const { files, requests, why } = await galleryDl('post', `${root}/posts/${id}`);
      assert.ok(
        requests.some((r) => r.url === `/posts/${id}.json`),
        why,
      );
      assertSame(files, [id], why);
    });

    test(`one pool of ${POOL_SIZE} posts`, async () => {
      const { files, requests, why } = await galleryDl('pool', `${root}/pools/${poolId}`);
      assert.ok(
        requests.some((r) => r.url === `/pools/${poolId}.json`),
        why,
      );
      assertSame(files, poolPosts, why);
    });
  });
}
