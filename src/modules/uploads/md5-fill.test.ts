import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { buildApp } from '../../app.ts';
import { mediaCommand } from '../../cli/media.ts';
import { counter } from '../../db/counters.ts';
import { openDatabase } from '../../db/database.ts';
import { commandEnv, eachDatabase, readMedia, testUnlessProcs, type Ctx } from '../../../test/helpers.ts';
import { register, type Account } from '../../../test/auth-helpers.ts';
import { multipart } from '../../../test/multipart.ts';
import * as fx from '../../../test/media-fixtures.ts';
import { deletePostRows } from '../posts/posts.delete.ts';
import { backgroundMd5Fill, fillMd5 } from './md5-fill.ts';
import { mediaUnavailable } from '../../storage/unavailable.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import type { FastifyBaseLogger } from 'fastify';

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');

async function upload(ctx: Ctx, who: Account, filename: string, data: Buffer): Promise<number> {
  const m = multipart({}, [{ filename, data }]);
  const res = await ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...who.headers } });
  assert.equal(res.statusCode, 201, res.body);
  return Number(res.json().post.id);
}

const md5s = async (ctx: Ctx, ids: number[]) =>
  (await ctx.database.selectFrom('posts').select(['id', 'md5']).where('id', 'in', ids).orderBy('id').execute()).map((r) => r.md5);

/** The posts as a board made before md5 was stored left them. */
const forget = (ctx: Ctx, ids: number[]) => ctx.database.updateTable('posts').set({ md5: null }).where('id', 'in', ids).execute();

/** The original's path in the media store (DATA_DIR/media, or the bucket in fleet mode). */
const originalOf = async (ctx: Ctx, id: number) =>
  (await ctx.database.selectFrom('posts').select('file_path').where('id', '=', id).executeTakeFirstOrThrow()).file_path;

eachDatabase({ title: 'md5 of posts', fleet: 'every instance starts a background md5 fill; each post is written once' }, (ctx) => {
  let alice: Account;
  before(async () => {
    alice = await register(ctx.app, 'alice');
  });

  test('an upload stores the md5 of the bytes as sent, beside their sha256', async () => {
    const png = await fx.png(71);
    const jpeg = await fx.jpegWithExifAndGps(72); // stored with its EXIF stripped: other bytes on disk
    const ids = [await upload(ctx, alice, 'a.png', png), await upload(ctx, alice, 'b.jpg', jpeg)];
    assert.deepEqual(await md5s(ctx, ids), [md5(png), md5(jpeg)]);
    assert.notEqual(md5(await readMedia(ctx, await originalOf(ctx, ids[1]))), md5(jpeg), 'the stored JPEG is not the bytes as sent');
    assert.equal(
      await ctx.database
        .selectFrom('posts')
        .select('id')
        .where('md5', '=', md5(png))
        .executeTakeFirst()
        .then((r) => r?.id),
      ids[0],
    );
  });

  testUnlessProcs(
    'posts made before md5 was stored get it from their original after start-up; a missing original stays empty',
    'it reads the report and the log of the start-up fill of apps it builds in the test process',
    async () => {
      const files = [await fx.png(73), await fx.png(74), await fx.png(75)];
      const ids = [];
      for (const [i, data] of files.entries()) ids.push(await upload(ctx, alice, `old${i}.png`, data));
      await forget(ctx, ids);
      await ctx.app.deps.media.delete(await originalOf(ctx, ids[2]));
      const version = await counter(ctx.database, 'version');

      const logs = new PassThrough();
      let logged = '';
      logs.on('data', (d) => (logged += d));
      const app = await buildApp({ ...ctx.config, logLevel: 'info' }, { database: ctx.database, clock: ctx.clock, logStream: logs });
      try {
        await app.ready();
        const report = await app.md5Fill;
        assert.deepEqual(report, { total: 3, filled: 2, missing: 1, stopped: false });
      } finally {
        await app.close();
      }
      assert.deepEqual(await md5s(ctx, ids), [md5(files[0]), md5(files[1]), null]);
      assert.equal(await counter(ctx.database, 'version'), version, 'filling md5 is no edit: caches keyed to the data version stay');
      assert.match(logged, /md5: 3 posts made before md5 was stored; filling them in the background/);
      assert.match(logged, /md5: 3 of 3 posts/);
      const warnings = logged.split('\n').filter((l) => l.includes('"level":40') && l.includes('md5'));
      assert.equal(warnings.length, 1, logged);
      assert.match(warnings[0], new RegExp(`md5: 1 post of this batch without a readable original \\(${ids[2]}\\) left without md5.*media check`));
      assert.match(warnings[0], /"code":"ENOENT"/);

      // The app started again tries again, and finds nothing else to do.
      const again = await buildApp(ctx.config, { database: ctx.database, clock: ctx.clock });
      try {
        assert.deepEqual(await again.md5Fill, { total: 1, filled: 0, missing: 1, stopped: false });
      } finally {
        await again.close();
      }
      await deletePostRows(ctx.database, ids[2]);
    },
  );

  test('a post deleted while its batch is read is no problem, and not reported missing', async () => {
    const files = [await fx.png(76), await fx.png(77), await fx.png(78)];
    const ids = [];
    for (const [i, data] of files.entries()) ids.push(await upload(ctx, alice, `gone${i}.png`, data));
    await forget(ctx, ids);
    const gone = ids[1];
    const original = await originalOf(ctx, gone);
    // Deleted (row and files) just after the fill has read its batch of posts, while the query still
    // holds its connection: on SQLite through a second one, as another process would.
    const other = ctx.kind === 'sqlite' ? await openDatabase({ url: '', dataDir: ctx.dataDir }) : ctx.database;
    let deleted = false;
    const db = ctx.database.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        if (!deleted && args.result.rows.some((r) => (r as { id?: number }).id === gone)) {
          deleted = true;
          await deletePostRows(other, gone);
          await ctx.app.deps.media.delete(original);
        }
        return args.result;
      },
    });
    const warned: number[][] = [];
    const report = await fillMd5({ db, media: ctx.app.deps.media }, { batch: 2, onMissing: (missing) => warned.push(missing) }).finally(async () => {
      if (other !== ctx.database) await other.close();
    });
    assert.ok(deleted);
    assert.deepEqual(warned, []);
    assert.deepEqual(report, { total: 3, filled: 2, missing: 0, stopped: false });
    assert.deepEqual(await md5s(ctx, ids), [md5(files[0]), md5(files[2])]);
  });

  test('the background fill waits while the media store is away and goes on when it is back: nothing reported missing', async () => {
    const files = [await fx.png(86), await fx.png(87), await fx.png(88)];
    const ids = [];
    for (const [i, data] of files.entries()) ids.push(await upload(ctx, alice, `away${i}.png`, data));
    await forget(ctx, ids);
    // The bucket refuses the first two reads, as while it restarts.
    let refusals = 2;
    const store = ctx.app.deps.media;
    const media: MediaStore = Object.assign(Object.create(store) as MediaStore, {
      read: (rel: string) => (refusals-- > 0 ? Promise.reject(mediaUnavailable(new Error('connect ECONNREFUSED'))) : store.read(rel)),
    });
    const lines: string[] = [];
    const say = (level: string) => (a: unknown, b?: string) => void lines.push(`${level} ${typeof a === 'string' ? a : b}`);
    const log = { info: say('info'), warn: say('warn'), error: say('error'), debug: () => {} } as unknown as FastifyBaseLogger;
    const report = await backgroundMd5Fill({ db: ctx.database, media }, log).done;
    assert.deepEqual(report, { total: 3, filled: 3, missing: 0, stopped: false });
    assert.deepEqual(await md5s(ctx, ids), files.map(md5));
    assert.deepEqual(
      lines.filter((l) => !l.startsWith('info')),
      ['warn md5: paused, the media store is unavailable; going on when it is back'],
    );
  });

  test('two fills at once (instances starting together) write each post once, and right', async () => {
    const files = [await fx.png(79), await fx.png(82), await fx.png(83), await fx.png(84), await fx.png(85)];
    const ids = [];
    for (const [i, data] of files.entries()) ids.push(await upload(ctx, alice, `twice${i}.png`, data));
    await forget(ctx, ids);
    const reports = await Promise.all([fillMd5(ctx.app.deps, { batch: 2 }), fillMd5(ctx.app.deps, { batch: 3 })]);
    // Each counts the posts still without md5 when it begins: under load one may begin after the other's first batch.
    assert.equal(Math.max(...reports.map((r) => r.total)), 5);
    assert.equal(reports[0].filled + reports[1].filled, 5);
    assert.deepEqual(await md5s(ctx, ids), files.map(md5));
  });

  test('imageboard media md5 fills them in the foreground and says which posts have no original', async () => {
    const files = [await fx.png(80), await fx.png(81)];
    const ids = [];
    for (const [i, data] of files.entries()) ids.push(await upload(ctx, alice, `cli${i}.png`, data));
    await forget(ctx, ids);
    await ctx.app.deps.media.delete(await originalOf(ctx, ids[1]));
    const env = await commandEnv(ctx);
    const run = async () => {
      let out = '';
      let err = '';
      const code = await mediaCommand(['md5'], { env, out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } });
      return { code, out, err };
    };

    const first = await run();
    assert.equal(first.code, 1, first.err);
    assert.match(first.err, /Using database: /);
    assert.match(first.err, /md5: posts\s+2\/2 \(100%\)/);
    assert.match(first.out, /posts without md5: 2, filled: 1\n/);
    assert.match(first.out, new RegExp(`original is missing, left without md5: 1 \\(${ids[1]}\\)`));
    assert.deepEqual(await md5s(ctx, ids), [md5(files[0]), null]);

    await deletePostRows(ctx.database, ids[1]);
    const second = await run();
    assert.equal(second.code, 0, second.err);
    assert.match(second.out, /posts without md5: 0, filled: 0\n/);
  });
});
