// `imageboard import folder`: a folder as gallery-dl leaves it comes in with what its sidecars say;
// what cannot come in is reported and the rest goes on; a second run adds nothing; a dry run writes
// nothing; bytes already on the board are matched and get the tags they lack (issue 57, 1, 4, 5).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { createUser, postRow } from '../../../test/factories.ts';
import { type Ctx, eachDatabase, storedMedia } from '../../../test/helpers.ts';
import { boardView, countPosts, importRun, reportLines, summaryCounts } from '../../../test/import-helpers.ts';
import * as fx from '../../../test/media-fixtures.ts';
import { contentPath } from '../../core/media-paths.ts';
import { insertPost } from '../posts/posts.repo.ts';
import { plainTags } from '../tags/tag-name-rules.ts';

const fixtures = path.join(import.meta.dirname, '../../../test/fixtures/sidecars');
const fixture = async (name: string) => JSON.parse(await fs.readFile(path.join(fixtures, name), 'utf8'));
const hex = (algo: 'md5' | 'sha256', b: Buffer) => createHash(algo).update(b).digest('hex');

/** Writes files under `root` (a Buffer as is, a string as text, anything else as JSON). */
async function writeTree(root: string, files: Record<string, Buffer | string | object>) {
  for (const [name, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(root, name)), { recursive: true });
    const bytes = Buffer.isBuffer(content) || typeof content === 'string' ? content : JSON.stringify(content);
    await fs.writeFile(path.join(root, name), bytes);
  }
}

async function postBySha(ctx: Ctx, sha: string) {
  return ctx.database.selectFrom('posts').selectAll().where('sha256', '=', sha).executeTakeFirst();
}

async function tagsOf(ctx: Ctx, postId: number): Promise<string[]> {
  const rows = await ctx.database
    .selectFrom('post_tags')
    .innerJoin('tags', 'tags.id', 'post_tags.tag_id')
    .select(['name', 'category'])
    .where('post_id', '=', postId)
    .execute();
  return rows.map((r) => `${r.name}:${r.category}`).sort();
}

eachDatabase('cli: imageboard import folder', (ctx) => {
  const bytes = {} as Record<string, Buffer>;
  let root: string;
  let report: string;

  before(async () => {
    root = path.join(ctx.dataDir, 'gallery-dl');
    report = path.join(ctx.dataDir, 'report.jsonl');
    for (let i = 1; i <= 3; i++) bytes[`d${i}`] = await fx.png(100 + i, 64, 48);
    bytes.e1 = await fx.png(110, 64, 48);
    bytes.e2 = await fx.png(111, 64, 48);
    bytes.txt = await fx.webp(112);
    bytes.szuru = await fx.png(113, 64, 48);
    const danbooru = await fixture('danbooru-pool.json');
    const e621 = await fixture('e621-pool.json');
    // Danbooru: 502 is the parent of 501 and 503, and comes after them; the pool's order is by id.
    const d = (id: number, b: Buffer, extra: object = {}) => ({ ...danbooru, id, md5: hex('md5', b), parent_id: id === 502 ? null : 502, ...extra });
    await writeTree(root, {
      'danbooru/pool/a_501.png': bytes.d1,
      'danbooru/pool/a_501.png.json': d(501, bytes.d1, { rating: 'q', created_at: '2020-01-02T03:04:05.000Z' }),
      'danbooru/pool/b_503.png': bytes.d3,
      'danbooru/pool/b_503.png.json': d(503, bytes.d3, { rating: 'e' }),
      'danbooru/pool/c_502.png': bytes.d2,
      'danbooru/pool/c_502.png.json': d(502, bytes.d2),
      // e621: places in the pool given (num), against the ids.
      'e621/p1.png': bytes.e1,
      'e621/p1.png.json': { ...e621, id: 9001, num: 2, file: { ...e621.file, md5: hex('md5', bytes.e1) } },
      'e621/p2.png': bytes.e2,
      'e621/p2.png.json': { ...e621, id: 9002, num: 1, file: { ...e621.file, md5: hex('md5', bytes.e2) } },
      'szurubooru/post.png': bytes.szuru,
      'szurubooru/post.png.json': { ...(await fixture('szurubooru-post.json')), checksumMD5: hex('md5', bytes.szuru) },
      'hydrus/cat.webp': bytes.txt,
      'hydrus/cat.webp.txt': 'creator:jane doe\nseries:my_show\nrating:safe\nsleeping cat\n',
      // What goes wrong: a damaged image, a file that is not the post's (MD5), a sidecar cut short.
      'broken/damaged.jpg': await fx.truncatedJpeg(),
      'broken/damaged.jpg.json': d(601, Buffer.from('x'), { md5: null }),
      'broken/other.png': await fx.png(120, 64, 48),
      'broken/other.png.json': d(602, Buffer.from('not these bytes')),
      'broken/cut.png': await fx.png(121, 64, 48),
      'broken/cut.png.json': '{"id": 603, "tag_string": ',
    });
  });

  test('the posts come in with their tags and kinds, rating, source, title, date, parent and pools; what cannot is reported and the rest goes on', async () => {
    const r = await importRun(ctx, ['folder', root, '--report', report, '--concurrency', '3']);
    assert.equal(r.code, 1, `some items failed: exit 1\n${r.out}${r.err}`);
    assert.deepEqual(summaryCounts(r.out), { imported: 7, matched: 0, skipped: 0, failed: 2, unreadable: 1, read: 10 });
    assert.match(r.err, /import: posts\s+10\/10 \(100%\)/);

    const lines = reportLines(await fs.readFile(report, 'utf8'));
    const failed = Object.fromEntries(lines.filter((l) => l.status !== 'warning').map((l) => [l.item, `${l.status}: ${l.reason}`]));
    assert.match(failed['broken/damaged.jpg'], /^failed: .*(damaged|truncated|decoded)/i);
    assert.match(failed['broken/other.png'], /^failed: the file's MD5 is [0-9a-f]{32}, the source says [0-9a-f]{32}/);
    assert.match(failed['broken/cut.png.json'], /^unreadable: the sidecar is not JSON/);
    assert.equal(Object.keys(failed).length, 3, JSON.stringify(lines));

    const d1 = (await postBySha(ctx, hex('sha256', bytes.d1)))!;
    const d2 = (await postBySha(ctx, hex('sha256', bytes.d2)))!;
    const d3 = (await postBySha(ctx, hex('sha256', bytes.d3)))!;
    assert.equal(d1.content_rating, 'sketchy', 'q');
    assert.equal(d3.content_rating, 'unsafe', 'e');
    assert.equal(d2.content_rating, 'safe', 'g');
    assert.equal(d1.created_at, Date.parse('2020-01-02T03:04:05.000Z'), 'the date at the origin');
    assert.equal(d1.source, 'https://twitter.com/kanzaki_hiro/status/1635612345678901234');
    assert.equal(d1.title, 'danbooru #501', 'no title at the origin: where it came from');
    assert.equal(d1.parent_id, d2.id, 'a parent that came after its child is linked at the end');
    assert.equal(d3.parent_id, d2.id);
    assert.deepEqual(await tagsOf(ctx, d1.id), [
      '1girl:general',
      'blue_sky:general',
      'hatsune_miku:character',
      'highres:meta',
      'kanzaki_hiro:artist',
      'long_hair:general',
      'smile:general',
      'solo:general',
      'twintails:general',
      'vocaloid:copyright',
    ]);
    const cat = (await postBySha(ctx, hex('sha256', bytes.txt)))!;
    assert.deepEqual(await tagsOf(ctx, cat.id), ['jane_doe:artist', 'my_show:copyright', 'sleeping_cat:general'], 'one tag a line');
    assert.equal(cat.content_rating, 'safe', 'rating:safe in a .txt is the rating, not a tag');
    assert.equal(cat.title, 'cat', 'no origin: the file name');

    const poolOrder = async (name: string) =>
      (
        await ctx.database
          .selectFrom('pool_posts')
          .innerJoin('pools', 'pools.id', 'pool_posts.pool_id')
          .innerJoin('posts', 'posts.id', 'pool_posts.post_id')
          .select('posts.sha256')
          .where('pools.name', '=', name)
          .orderBy('position')
          .execute()
      ).map((p) => p.sha256);
    const danbooruPool = (await fixture('danbooru-pool.json')).pool.name.replace(/_/g, ' ');
    assert.deepEqual(
      await poolOrder(danbooruPool),
      [bytes.d1, bytes.d2, bytes.d3].map((b) => hex('sha256', b)),
      'by id',
    );
    const e621Pool = (await fixture('e621-pool.json')).pool.name.replace(/_/g, ' ');
    assert.deepEqual(
      await poolOrder(e621Pool),
      [bytes.e2, bytes.e1].map((b) => hex('sha256', b)),
      'by place',
    );

    const records = await ctx.database
      .selectFrom('import_records')
      .selectAll()
      .where('kind', '=', 'post')
      .where('origin', '=', 'e621')
      .orderBy('origin_id')
      .execute();
    assert.deepEqual(
      records.map((r) => [r.origin_id, r.score, r.fav_count]),
      [
        ['9001', 108, 233],
        ['9002', 108, 233],
      ],
      'score and favorites at the origin are kept as metadata',
    );
    const szuru = (await postBySha(ctx, hex('sha256', bytes.szuru)))!;
    const kept = await ctx.database
      .selectFrom('import_records')
      .selectAll()
      .where('local_id', '=', szuru.id)
      .where('kind', '=', 'post')
      .executeTakeFirstOrThrow();
    assert.equal(kept.author, 'stablehand', 'the original uploader is kept');
    const owner = await ctx.database.selectFrom('users').select('username').where('id', '=', szuru.uploader_id).executeTakeFirstOrThrow();
    assert.equal(owner.username, 'import', 'posts belong to the import account unless --as names another');
    const comments = await ctx.database.selectFrom('comments').select(['content', 'created_at']).where('post_id', '=', szuru.id).execute();
    assert.equal(comments.length, 1, 'szurubooru sidecars carry comments');
  });

  test('a second run adds nothing: every post is found by its origin and id', async () => {
    const posts = await countPosts(ctx);
    const before = await boardView(ctx.database, ctx.app.deps.media);
    const media = await storedMedia(ctx);
    const r = await importRun(ctx, ['folder', root, '--report', report]);
    assert.deepEqual(summaryCounts(r.out), { imported: 0, matched: 0, skipped: 7, failed: 2, unreadable: 1, read: 10 });
    assert.equal(await countPosts(ctx), posts);
    assert.deepEqual(await boardView(ctx.database, ctx.app.deps.media), before, 'tags, pools, parents, comments: all as they were');
    assert.deepEqual(await storedMedia(ctx), media);
  });

  describe('bytes already on the board', () => {
    test('are matched by sha256 or md5: the post keeps its owner and gets the tags it lacks', async () => {
      const alice = await createUser(ctx.database, { username: 'imp_alice' });
      const bySha = await fx.png(130, 64, 48);
      const byMd5 = await fx.png(131, 64, 48);
      const stored = async (b: Buffer, sha: string) => {
        const row = {
          ...postRow({ uploaderId: alice, createdAt: Date.parse('2024-05-01T00:00:00Z') }),
          sha256: sha,
          md5: hex('md5', b),
          file_path: contentPath('originals', sha, 'png'),
          file_size: b.length,
        };
        const id = await insertPost(ctx.database, row, plainTags(['imp_old']));
        await ctx.app.deps.media.put(row.file_path, b);
        return id;
      };
      const shaPost = await stored(bySha, hex('sha256', bySha));
      // A post whose sha256 is of other bytes (as a board hashing what it kept, not what was sent) and whose md5 is these bytes'.
      const md5Post = await stored(byMd5, hex('sha256', Buffer.from('other bytes')));
      const dir = path.join(ctx.dataDir, 'known');
      await writeTree(dir, { 'a.png': bySha, 'a.png.txt': 'imp_new\nartist:imp_someone\n', 'b.png': byMd5, 'b.png.txt': 'imp_new\n' });
      const posts = await countPosts(ctx);
      const r = await importRun(ctx, ['folder', dir, '--report', report]);
      assert.equal(r.code, 0, r.out + r.err);
      assert.deepEqual(summaryCounts(r.out), { imported: 0, matched: 2, skipped: 0, failed: 0, unreadable: 0, read: 2 });
      assert.equal(await countPosts(ctx), posts, 'no second post of the same bytes');
      assert.deepEqual(await tagsOf(ctx, shaPost), ['imp_new:general', 'imp_old:general', 'imp_someone:artist']);
      assert.deepEqual(await tagsOf(ctx, md5Post), ['imp_new:general', 'imp_old:general']);
      const owners = await ctx.database.selectFrom('posts').select('uploader_id').where('id', 'in', [shaPost, md5Post]).execute();
      assert.deepEqual(
        owners.map((o) => o.uploader_id),
        [alice, alice],
      );
      const matched = reportLines(await fs.readFile(report, 'utf8')).filter((l) => l.status === 'matched');
      assert.deepEqual(matched.map((l) => l.postId).sort(), [String(shaPost), String(md5Post)].sort());
    });
  });

  test('--dry-run checks everything and writes nothing', async () => {
    const dir = path.join(ctx.dataDir, 'dry');
    const fresh = await fx.png(140, 64, 48);
    await writeTree(dir, { 'new.png': fresh, 'new.png.txt': 'imp_dry\n', 'bad.jpg': await fx.truncatedJpeg() });
    const posts = await countPosts(ctx);
    const media = await storedMedia(ctx);
    const tags = await ctx.database.selectFrom('tags').select('name').where('name', '=', 'imp_dry').execute();
    const r = await importRun(ctx, ['folder', dir, '--dry-run', '--report', report]);
    assert.equal(r.code, 1, 'the damaged file is found without writing');
    assert.match(r.out, /^Would import 1 posts; .* 1 failed/);
    assert.equal(await countPosts(ctx), posts);
    assert.deepEqual(await storedMedia(ctx), media);
    assert.deepEqual(tags, []);
    assert.deepEqual(await ctx.database.selectFrom('tags').select('name').where('name', '=', 'imp_dry').execute(), []);
  });

  test('--as names who owns what comes in; a name that is no member is refused before anything is read', async () => {
    await createUser(ctx.database, { username: 'imp_owner' });
    const dir = path.join(ctx.dataDir, 'as');
    const b = await fx.png(150, 64, 48);
    await writeTree(dir, { 'mine.png': b });
    const refused = await importRun(ctx, ['folder', dir, '--as', 'imp_nobody', '--report', report]);
    assert.equal(refused.code, 2);
    assert.match(refused.err, /no member named 'imp_nobody'/);
    assert.equal(await postBySha(ctx, hex('sha256', b)), undefined);
    const r = await importRun(ctx, ['folder', dir, '--as', 'imp_owner', '--report', report]);
    assert.equal(r.code, 0, r.out + r.err);
    const post = (await postBySha(ctx, hex('sha256', b)))!;
    const owner = await ctx.database.selectFrom('users').select('username').where('id', '=', post.uploader_id).executeTakeFirstOrThrow();
    assert.equal(owner.username, 'imp_owner');
    assert.equal(post.content_rating, 'sketchy', 'no rating at the source: the default of --rating');
  });

  test('bad usage is refused with the usage', async () => {
    for (const args of [
      ['folder'],
      ['zip', 'x'],
      ['folder', root, '--rating', 'nsfw'],
      ['folder', root, '--tags', 'x'],
      ['folder', root, '--concurrency', '0'],
    ]) {
      const r = await importRun(ctx, args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.err, /Usage:\n {2}import folder DIR/);
    }
    const missing = await importRun(ctx, ['folder', path.join(ctx.dataDir, 'nowhere')]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /is not a folder/);
  });
});
