import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { commandEnv, type Ctx, eachDatabase, readMedia } from '../../../test/helpers.ts';
import { addComment, addFavorite, addLike, createPool, createUser, postRow } from '../../../test/factories.ts';
import { contentPath } from '../../core/media-paths.ts';
import { exportCommand } from '../../cli/export.ts';
import { insertPost } from '../posts/posts.repo.ts';
import { plainTags } from '../tags/tag-name-rules.ts';

const hex = (algo: 'sha256' | 'md5', b: Buffer) => createHash(algo).update(b).digest('hex');
const T0 = Date.parse('2025-03-01T10:00:00.000Z');

/** Runs `imageboard export ...` against the suite's board; its exit code and output. */
async function run(ctx: Ctx, args: string[]) {
  let out = '';
  let err = '';
  const env = { ...(await commandEnv(ctx)), PUBLIC_URL: 'https://pics.example.org/board' };
  const code = await exportCommand(args, { env, out: { write: (s: string) => (out += s) }, err: { write: (s: string) => (err += s) } });
  return { code, out, err };
}

/**
 * A post whose original is in the media store. `stored`: other bytes than the upload's, as an
 * image whose metadata was stripped is kept (the post's sha256 and md5 stay the upload's).
 */
async function post(ctx: Ctx, spec: { uploaderId: number; tags: string[]; at: number; stripped?: boolean } & Record<string, unknown>) {
  const uploaded = randomBytes(300);
  const stored = spec.stripped ? randomBytes(250) : uploaded;
  const sha = hex('sha256', uploaded);
  const row = {
    ...postRow({ uploaderId: spec.uploaderId, createdAt: spec.at }),
    sha256: sha,
    md5: hex('md5', uploaded),
    file_path: contentPath('originals', sha, 'png'),
    file_size: stored.length,
    title: (spec.title as string) ?? '',
    description: (spec.description as string) ?? '',
    content_rating: (spec.rating as string) ?? 'safe',
    source: (spec.source as string) ?? null,
    parent_id: (spec.parentId as number) ?? null,
  };
  const id = await insertPost(ctx.database, row, plainTags(spec.tags));
  await ctx.app.deps.media.put(row.file_path, stored);
  return { id, row, stored };
}

async function tagId(ctx: Ctx, name: string): Promise<number> {
  const found = await ctx.database.selectFrom('tags').select('id').where('name', '=', name).executeTakeFirst();
  if (found) return found.id;
  const made = await ctx.database.insertInto('tags').values({ name, post_count: 0, created_at: T0 }).returning('id').executeTakeFirstOrThrow();
  return made.id;
}

const readJson = async (file: string) => JSON.parse(await fs.readFile(file, 'utf8'));
const tagLines = async (dir: string) =>
  (await fs.readFile(path.join(dir, 'tags.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
/** Every file under `dir`, relative, sorted. */
const filesUnder = async (dir: string) => ((await fs.readdir(dir, { recursive: true })) as string[]).filter((f) => f.includes('.')).sort();

eachDatabase('cli: imageboard export', (ctx) => {
  const b = {} as Record<string, any>;
  before(async () => {
    const db = ctx.database;
    b.alice = await createUser(db, { username: 'ex_alice' });
    b.bob = await createUser(db, { username: 'ex_bob' });
    b.p1 = await post(ctx, {
      uploaderId: b.alice,
      tags: ['ex_cat', 'ex_artist_x'],
      at: T0,
      title: 'First',
      description: 'a cat, drawn',
      source: 'https://example.com/1',
    });
    b.p2 = await post(ctx, { uploaderId: b.bob, tags: ['ex_cat', 'ex_dog'], at: T0 + 1000, rating: 'sketchy', parentId: b.p1.id, stripped: true });
    b.p3 = await post(ctx, { uploaderId: b.alice, tags: ['ex_dog'], at: T0 + 2000, rating: 'unsafe' });
    await db.updateTable('tags').set({ category: 'artist' }).where('name', '=', 'ex_artist_x').execute();
    await db.updateTable('tags').set({ description: 'A small feline.' }).where('name', '=', 'ex_cat').execute();
    const unusedChar = await tagId(ctx, 'ex_unused_char');
    await db.updateTable('tags').set({ category: 'character' }).where('id', '=', unusedChar).execute();
    await tagId(ctx, 'ex_plain_unused');
    await addLike(db, b.bob, b.p1.id, T0 + 10);
    await addFavorite(db, b.bob, b.p1.id, T0 + 11);
    b.c1 = await addComment(db, { postId: b.p1.id, userId: b.bob, content: 'hello', createdAt: T0 + 20 });
    b.c2 = await addComment(db, { postId: b.p1.id, userId: b.alice, content: 'hi back', parentId: b.c1, createdAt: T0 + 30 });
    const record = { author: null, score: null, fav_count: null, created_at: T0 };
    await db
      .insertInto('import_records')
      .values([
        { ...record, kind: 'post', origin: 'danbooru', origin_id: '123', local_id: b.p1.id, author: 'db_uploader', score: 42, fav_count: 7 },
        { ...record, kind: 'comment', origin: 'danbooru', origin_id: '9', local_id: b.c1, author: 'db_commenter' },
      ])
      .execute();
    b.cats = await createPool(db, { creatorId: b.alice, name: 'Cats', description: 'cats only', postIds: [b.p2.id, b.p1.id], at: T0 });
    b.hidden = await createPool(db, { creatorId: b.bob, name: 'Mine', isPublic: false, postIds: [b.p3.id], at: T0 });
    b.empty = await createPool(db, { creatorId: b.bob, name: 'Empty', at: T0 });
    const alias = (from: string, tag: number) => ({ from_name: from, tag_id: tag, creator_id: null, created_at: T0 });
    await db
      .insertInto('tag_aliases')
      .values([alias('ex_kitty', await tagId(ctx, 'ex_cat')), alias('ex_puppy', await tagId(ctx, 'ex_dog')), alias('ex_char_alias', unusedChar)])
      .execute();
    const implies = async (from: string, to: string) => ({ from_id: await tagId(ctx, from), to_id: await tagId(ctx, to), creator_id: null, created_at: T0 });
    await db
      .insertInto('tag_implications')
      .values([await implies('ex_dog', 'ex_cat'), await implies('ex_cat', 'ex_unused_char'), await implies('ex_kitten', 'ex_plain_unused')])
      .execute();
  });

  const sidecarOf = (dir: string, id: number) => readJson(path.join(dir, 'posts', '0000', `${id}.png.json`));

  test('the whole board: every original as stored with its sidecar, every tag worth a line, relation and pool; the manifest last', async () => {
    const dir = path.join(ctx.dataDir, 'export-all');
    const r = await run(ctx, [dir]);
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /^Exported 3 posts \(850 bytes of media\) to .*export-all: 4 tags, 3 aliases, 3 implications, 3 pools in [\d.]+ s \(\d+ posts\/s\)\.\n$/,
    );
    assert.match(r.err, /export: posts\s+3\/3 \(100%\)/);
    const manifest = await readJson(path.join(dir, 'manifest.json'));
    assert.equal(typeof manifest.exportedAt, 'string');
    assert.deepEqual(
      { ...manifest, exportedAt: 'x' },
      { format: 'imageboard-export', version: 1, board: 'pics.example.org', exportedAt: 'x', query: null, posts: 3 },
    );
    assert.deepEqual(
      await filesUnder(dir),
      [
        'aliases.json',
        'implications.json',
        'manifest.json',
        ...[b.p1, b.p2, b.p3].flatMap((p) => [`posts/0000/${p.id}.png`, `posts/0000/${p.id}.png.json`]),
        'pools.json',
        'tags.jsonl',
      ].sort(),
      'no unfinished mark or temporary file is left',
    );
    for (const p of [b.p1, b.p2, b.p3]) {
      const bytes = await fs.readFile(path.join(dir, 'posts', '0000', `${p.id}.png`));
      assert.equal(hex('sha256', bytes), hex('sha256', await readMedia(ctx, p.row.file_path)), 'the stored original, byte for byte');
      const side = await sidecarOf(dir, p.id);
      assert.deepEqual(side.file, { name: `${p.id}.png`, mime: 'image/png', bytes: p.stored.length, sha256: hex('sha256', bytes), md5: hex('md5', bytes) });
      assert.deepEqual([side.sha256, side.md5], [p.row.sha256, p.row.md5], "the post's own hashes");
    }
    assert.notEqual((await sidecarOf(dir, b.p2.id)).file.sha256, b.p2.row.sha256, 'a stripped original differs from the upload, and says so');

    const { file: _, ...p1 } = await sidecarOf(dir, b.p1.id);
    assert.deepEqual(p1, {
      id: b.p1.id,
      sha256: b.p1.row.sha256,
      md5: b.p1.row.md5,
      title: 'First',
      description: 'a cat, drawn',
      rating: 'safe',
      source: 'https://example.com/1',
      created_at: '2025-03-01T10:00:00.000Z',
      parent_id: null,
      uploader: 'ex_alice',
      tags: [
        { name: 'ex_artist_x', category: 'artist' },
        { name: 'ex_cat', category: 'general' },
      ],
      pools: [{ id: b.cats, position: 2 }],
      like_count: 1,
      favorite_count: 1,
      comments: [
        {
          id: b.c1,
          author: 'ex_bob',
          body: 'hello',
          created_at: '2025-03-01T10:00:00.020Z',
          parent_id: null,
          imported: [{ origin: 'danbooru', origin_id: '9', author: 'db_commenter' }],
        },
        { id: b.c2, author: 'ex_alice', body: 'hi back', created_at: '2025-03-01T10:00:00.030Z', parent_id: b.c1, imported: [] },
      ],
      imported: [{ origin: 'danbooru', origin_id: '123', author: 'db_uploader', score: 42, fav_count: 7 }],
    });
    const p2 = await sidecarOf(dir, b.p2.id);
    assert.deepEqual([p2.parent_id, p2.rating, p2.uploader, p2.source, p2.comments, p2.imported], [b.p1.id, 'sketchy', 'ex_bob', null, [], []]);

    const byName = (a: { name: string }, c: { name: string }) => (a.name < c.name ? -1 : 1);
    // Not ex_plain_unused nor ex_kitten: unused, general and undescribed, there is nothing to say of them.
    assert.deepEqual((await tagLines(dir)).sort(byName), [
      { name: 'ex_artist_x', category: 'artist', description: '' },
      { name: 'ex_cat', category: 'general', description: 'A small feline.' },
      { name: 'ex_dog', category: 'general', description: '' },
      { name: 'ex_unused_char', category: 'character', description: '' },
    ]);
    const byFrom = (a: { from: string }, c: { from: string }) => (a.from < c.from ? -1 : 1);
    assert.deepEqual((await readJson(path.join(dir, 'aliases.json'))).sort(byFrom), [
      { from: 'ex_char_alias', to: 'ex_unused_char' },
      { from: 'ex_kitty', to: 'ex_cat' },
      { from: 'ex_puppy', to: 'ex_dog' },
    ]);
    assert.deepEqual((await readJson(path.join(dir, 'implications.json'))).sort(byFrom), [
      { from: 'ex_cat', to: 'ex_unused_char' },
      { from: 'ex_dog', to: 'ex_cat' },
      { from: 'ex_kitten', to: 'ex_plain_unused' },
    ]);
    assert.deepEqual(await readJson(path.join(dir, 'pools.json')), [
      { id: b.cats, name: 'Cats', description: 'cats only', is_public: true, post_ids: [b.p2.id, b.p1.id] },
      { id: b.hidden, name: 'Mine', description: '', is_public: false, post_ids: [b.p3.id] },
      { id: b.empty, name: 'Empty', description: '', is_public: true, post_ids: [] },
    ]);
  });

  test('--q: the posts the query matches, the tags they have and the relations among those, their pools with them alone', async () => {
    const dir = path.join(ctx.dataDir, 'export-cats');
    const r = await run(ctx, [dir, '--q', 'ex_kitty -rating:unsafe']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Exported 2 posts \(550 bytes of media\) to .* \(query: ex_kitty -rating:unsafe\): 3 tags, 2 aliases, 1 implications, 1 pools /);
    assert.equal((await readJson(path.join(dir, 'manifest.json'))).query, 'ex_kitty -rating:unsafe');
    assert.deepEqual(
      (await filesUnder(path.join(dir, 'posts'))).filter((f) => !f.endsWith('.json')),
      [`0000/${b.p1.id}.png`, `0000/${b.p2.id}.png`],
    );
    assert.deepEqual((await tagLines(dir)).map((t) => t.name).sort(), ['ex_artist_x', 'ex_cat', 'ex_dog']);
    assert.deepEqual((await readJson(path.join(dir, 'aliases.json'))).map((a: { from: string }) => a.from).sort(), ['ex_kitty', 'ex_puppy']);
    assert.deepEqual(await readJson(path.join(dir, 'implications.json')), [{ from: 'ex_dog', to: 'ex_cat' }]);
    assert.deepEqual(await readJson(path.join(dir, 'pools.json')), [
      { id: b.cats, name: 'Cats', description: 'cats only', is_public: true, post_ids: [b.p2.id, b.p1.id] },
    ]);
  });

  test('run again into an export: what is no longer exported goes, whole files are kept, a cut-off file is written again', async () => {
    const dir = path.join(ctx.dataDir, 'export-again');
    assert.equal((await run(ctx, [dir])).code, 0);
    // A run cut off: its mark, a temporary file, a truncated original, and no manifest.
    await fs.rm(path.join(dir, 'manifest.json'));
    await fs.writeFile(path.join(dir, 'export-unfinished.json'), JSON.stringify({ format: 'imageboard-export' }));
    await fs.writeFile(path.join(dir, 'posts', '0000', `${b.p3.id}.png.tmp-1`), 'partial');
    await fs.writeFile(path.join(dir, 'tags.jsonl.tmp-1'), '{"name":');
    await fs.writeFile(path.join(dir, 'posts', '0000', `${b.p2.id}.png`), 'cut');
    await fs.mkdir(path.join(dir, 'posts', '0007'));
    await fs.writeFile(path.join(dir, 'posts', '0007', '7001.png'), 'a post since deleted');
    const again = await run(ctx, [dir, '--q', 'ex_dog']);
    assert.equal(again.code, 0, again.err);
    assert.deepEqual(await filesUnder(path.join(dir, 'posts')), [
      `0000/${b.p2.id}.png`,
      `0000/${b.p2.id}.png.json`,
      `0000/${b.p3.id}.png`,
      `0000/${b.p3.id}.png.json`,
    ]);
    assert.deepEqual(await fs.readFile(path.join(dir, 'posts', '0000', `${b.p2.id}.png`)), b.p2.stored, 'the truncated file was copied again');
    assert.equal((await readJson(path.join(dir, 'manifest.json'))).posts, 2);
    assert.deepEqual((await fs.readdir(dir)).sort(), ['aliases.json', 'implications.json', 'manifest.json', 'pools.json', 'posts', 'tags.jsonl']);

    // A whole file is not read from the store again: with the original gone from the store, the post is still exported.
    await ctx.app.deps.media.delete(b.p3.row.file_path);
    try {
      const third = await run(ctx, [dir, '--q', 'ex_dog']);
      assert.equal(third.code, 0, third.err);
      assert.deepEqual(await fs.readFile(path.join(dir, 'posts', '0000', `${b.p3.id}.png`)), b.p3.stored);
      // Elsewhere it is missing: the post is left out, and the command says so.
      const fresh = await run(ctx, [path.join(ctx.dataDir, 'export-missing'), '--q', 'ex_dog']);
      assert.equal(fresh.code, 1);
      assert.match(fresh.out, /^Exported 1 posts .*\nwarning: 1 post\(s\) left out, their original missing from the media store: \d+\n/);
      assert.deepEqual((await filesUnder(path.join(ctx.dataDir, 'export-missing', 'posts'))).length, 2);
    } finally {
      await ctx.app.deps.media.put(b.p3.row.file_path, b.p3.stored);
    }
  });

  test('refused, writing nothing: a folder with files of its own, a file, a query with a mistake; bad usage', async () => {
    const foreign = path.join(ctx.dataDir, 'holiday-photos');
    await fs.mkdir(foreign);
    await fs.writeFile(path.join(foreign, 'manifest.json'), '{"format":"something-else"}');
    const r = await run(ctx, [foreign]);
    assert.equal(r.code, 2);
    assert.match(r.err, /holiday-photos is not empty and holds no export .*nothing was written/);
    assert.deepEqual(await fs.readdir(foreign), ['manifest.json']);

    const file = path.join(ctx.dataDir, 'a-file');
    await fs.writeFile(file, 'x');
    const onFile = await run(ctx, [file]);
    assert.deepEqual([onFile.code, await fs.readFile(file, 'utf8')], [2, 'x']);
    assert.match(onFile.err, /a-file is a file, not a folder/);

    const notYet = path.join(ctx.dataDir, 'never-made');
    const bad = await run(ctx, [notYet, '--q', 'ex_cat (ex_dog']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /^Using database: .*\n--q: .* \(at character \d+\)\n$/);
    await assert.rejects(fs.access(notYet), 'the folder was not made');

    for (const args of [[], ['a', 'b'], ['a', '--q', ' ']]) {
      const u = await run(ctx, args);
      assert.equal(u.code, 2, args.join(' '));
      assert.match(u.err, /^Usage:\n {2}export DIR \[--q QUERY\]/);
    }

    const empty = path.join(ctx.dataDir, 'empty-folder');
    await fs.mkdir(empty);
    assert.equal((await run(ctx, [empty, '--q', 'no_such_tag_here'])).code, 0, 'an empty folder is taken');
    assert.equal((await readJson(path.join(empty, 'manifest.json'))).posts, 0);
  });
});
