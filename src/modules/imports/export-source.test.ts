import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type Ctx, eachDatabase } from '../../../test/helpers.ts';
import { type Account, register } from '../../../test/auth-helpers.ts';
import { addComment, createPool } from '../../../test/factories.ts';
import * as fx from '../../../test/media-fixtures.ts';
import { multipart } from '../../../test/multipart.ts';
import { exportBoard } from '../exports/export.service.ts';
import { exportSource, isExportDir } from './export-source.ts';
import type { ImportItem, SourceEntry } from './import-item.ts';

const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');

/** Uploads through the API, as a member would; the post's id. */
async function upload(ctx: Ctx, who: Account, file: { filename: string; data: Buffer }, fields: Record<string, string>): Promise<number> {
  const m = multipart(fields, [file]);
  const res = await ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...who.headers } });
  assert.equal(res.statusCode, 201, res.body);
  return Number(res.json().post.id);
}

async function entriesOf(dir: string): Promise<SourceEntry[]> {
  const out: SourceEntry[] = [];
  for await (const e of exportSource(dir).entries()) out.push(e);
  return out;
}

eachDatabase(
  'imports: reading an export back',
  (ctx) => {
    const b = {} as Record<string, any>;
    let dir: string;
    before(async () => {
      const alice = await register(ctx.app, 'src_alice');
      const bob = await register(ctx.app, 'src_bob');
      b.p1 = await upload(
        ctx,
        alice,
        { filename: 'a.png', data: await fx.png(71, 40, 30) },
        { tags: 'src_cat, artist:src_painter', title: 'Sunset', description: 'over the bay', source: 'https://example.com/a', contentRating: 'sketchy' },
      );
      // Its EXIF is stripped on upload: the stored bytes are not the uploaded ones.
      b.p2 = await upload(ctx, bob, { filename: 'b.jpg', data: await fx.jpegWithExifAndGps(72) }, { tags: 'src_cat', parentId: String(b.p1) });
      b.c1 = await addComment(ctx.database, { postId: b.p1, userId: Number(bob.id), content: 'first!', createdAt: Date.parse('2025-05-01T00:00:00Z') });
      b.c2 = await addComment(ctx.database, {
        postId: b.p1,
        userId: Number(alice.id),
        content: 'thanks',
        parentId: b.c1,
        createdAt: Date.parse('2025-05-02T00:00:00Z'),
      });
      b.pool = await createPool(ctx.database, { creatorId: Number(alice.id), name: 'Bay series', description: 'evenings', postIds: [b.p2, b.p1], at: 1 });
      b.empty = await createPool(ctx.database, { creatorId: Number(alice.id), name: 'Empty', at: 1 });
      await ctx.database
        .insertInto('import_records')
        .values([
          { kind: 'post', origin: 'e621', origin_id: '55', local_id: b.p1, author: 'e6_uploader', score: 12, fav_count: 3, created_at: 1 },
          { kind: 'comment', origin: 'e621', origin_id: '8', local_id: b.c1, author: 'e6_commenter', score: null, fav_count: null, created_at: 1 },
        ])
        .execute();
      const cat = await ctx.database.selectFrom('tags').select('id').where('name', '=', 'src_cat').executeTakeFirstOrThrow();
      await ctx.database.updateTable('tags').set({ description: 'Cats.' }).where('id', '=', cat.id).execute();
      await ctx.database.insertInto('tag_aliases').values({ from_name: 'src_kitty', tag_id: cat.id, creator_id: null, created_at: 1 }).execute();
      const painter = await ctx.database.selectFrom('tags').select('id').where('name', '=', 'src_painter').executeTakeFirstOrThrow();
      await ctx.database.insertInto('tag_implications').values({ from_id: painter.id, to_id: cat.id, creator_id: null, created_at: 1 }).execute();
      dir = path.join(ctx.dataDir, 'the-export');
      await exportBoard(ctx.app.deps, dir, { q: null });
    });

    test('every post comes back as the ImportItem of what was exported, in id order', async () => {
      assert.equal(await isExportDir(dir), true);
      assert.equal(await exportSource(dir).total(), 2);
      const rows = await ctx.database.selectFrom('posts').select(['id', 'created_at', 'md5']).orderBy('id').execute();
      const file = (id: number, ext: string) => path.join(dir, 'posts', '0000', `${id}.${ext}`);
      const expected: ImportItem[] = [
        {
          origin: 'old.example.net:8080',
          originId: String(b.p1),
          file: file(b.p1, 'png'),
          label: file(b.p1, 'png'),
          md5: md5(await fs.readFile(file(b.p1, 'png'))),
          tags: [
            { name: 'src_cat', category: 'general' },
            { name: 'src_painter', category: 'artist' },
          ],
          rating: 'sketchy',
          source: 'https://example.com/a',
          title: 'Sunset',
          description: 'over the bay',
          createdAt: rows[0].created_at,
          parentOriginId: null,
          pools: [{ key: String(b.pool), name: 'Bay series', position: 2, description: null }],
          // What the first origin said: this board had imported the post and its first comment from e621.
          score: 12,
          favCount: 3,
          uploader: 'e6_uploader',
          comments: [
            { key: String(b.c1), author: 'e6_commenter', body: 'first!', createdAt: Date.parse('2025-05-01T00:00:00Z') },
            { key: String(b.c2), author: 'src_alice', body: 'thanks', createdAt: Date.parse('2025-05-02T00:00:00Z') },
          ],
        },
        {
          origin: 'old.example.net:8080',
          originId: String(b.p2),
          file: file(b.p2, 'jpg'),
          label: file(b.p2, 'jpg'),
          md5: md5(await fs.readFile(file(b.p2, 'jpg'))),
          tags: [{ name: 'src_cat', category: 'general' }],
          rating: 'safe',
          source: null,
          title: 'b',
          description: null,
          createdAt: rows[1].created_at,
          parentOriginId: String(b.p1),
          pools: [{ key: String(b.pool), name: 'Bay series', position: 1, description: null }],
          score: null,
          favCount: null,
          uploader: 'src_bob',
          comments: [],
        },
      ];
      const entries = await entriesOf(dir);
      assert.deepEqual(
        entries,
        expected.map((item) => ({ kind: 'post', item })),
      );
      assert.notEqual(expected[1].md5, rows[1].md5, "the md5 checked is the exported bytes', not the upload's (its EXIF was stripped)");
    });

    test('the board data: tags with categories and descriptions, aliases, implications, pools in order', async () => {
      const board = await exportSource(dir).board();
      board.tags.sort((x, y) => (x.name < y.name ? -1 : 1));
      assert.deepEqual(board, {
        tags: [
          { name: 'src_cat', category: 'general', description: 'Cats.' },
          { name: 'src_painter', category: 'artist', description: null },
        ],
        aliases: [{ from: 'src_kitty', to: 'src_cat' }],
        implications: [{ from: 'src_painter', to: 'src_cat' }],
        pools: [
          { origin: 'old.example.net:8080', key: String(b.pool), name: 'Bay series', description: 'evenings', postOriginIds: [String(b.p2), String(b.p1)] },
          { origin: 'old.example.net:8080', key: String(b.empty), name: 'Empty', description: null, postOriginIds: [] },
        ],
      });
    });

    test('what cannot be read is a problem naming the file, and the rest is read; a folder that is no finished export is not one', async () => {
      const copy = path.join(ctx.dataDir, 'damaged');
      await fs.cp(dir, copy, { recursive: true });
      const folder = path.join(copy, 'posts', '0000');
      await fs.rm(path.join(folder, `${b.p2}.jpg`));
      await fs.writeFile(path.join(folder, '999.png'), 'no sidecar');
      await fs.writeFile(path.join(folder, '998.png.json'), '{ not json');
      const entries = await entriesOf(copy);
      assert.deepEqual(
        entries.map((e) => (e.kind === 'post' ? `post ${e.item.originId}` : `${path.basename(e.problem.label)}: ${e.problem.reason.replace(/:.*/, '')}`)),
        [
          `post ${b.p1}`,
          `${b.p2}.jpg.json: its media file ${b.p2}.jpg is missing`,
          '998.png.json: the sidecar cannot be read as JSON',
          '999.png: a file without a sidecar',
        ],
      );

      const unfinished = path.join(ctx.dataDir, 'unfinished');
      await fs.cp(dir, unfinished, { recursive: true });
      await fs.rm(path.join(unfinished, 'manifest.json'));
      for (const d of [unfinished, path.join(ctx.dataDir, 'nowhere'), path.join(dir, 'posts')]) assert.equal(await isExportDir(d), false, d);
      await assert.rejects(entriesOf(unfinished), /is not a finished export/);
    });
  },
  { publicUrl: 'https://old.example.net:8080/board' },
);
