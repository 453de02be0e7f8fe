import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, scryptSync, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import sharp from 'sharp';
import type { DB } from '../db/types.ts';
import { perceptualHash } from '../media/phash.ts';
import { normalizeTagName } from '../modules/tags/tag-name-rules.ts';
import { databaseKinds, eachDatabase, freshDatabase, getJson, type DbKind } from '../../test/helpers.ts';
import { LocalMediaStore } from '../storage/local.ts';
import type { S3MediaStore } from '../storage/s3.ts';
import { migrateMedia } from '../modules/uploads/media-migrate.ts';
import { SeedRefused, seedDatabase, type SeedOptions, type SeedSummary } from './generate.ts';

/** Every rating, named in q: a visitor is otherwise listed safe posts only (VISITOR_RATINGS). */
const EVERY_RATING = 'rating:safe,sketchy,unsafe';

const POSTS = 300;
const options = (dataDir: string, until: number, seed = 7): SeedOptions => ({ posts: POSTS, seed, until, mediaDir: path.join(dataDir, 'media') });

async function count(db: Kysely<DB>, table: keyof DB): Promise<number> {
  return Number(
    (
      await db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
}

/** Rows whose stored counter disagrees with a COUNT over the rows it counts. */
async function counterMismatches(db: Kysely<DB>) {
  const posts = await db
    .selectFrom('posts')
    .select((eb) => [
      'posts.id',
      'posts.like_count',
      'posts.comment_count',
      'posts.favorite_count',
      eb.selectFrom('likes').select(eb.fn.countAll<number>().as('n')).whereRef('likes.post_id', '=', 'posts.id').as('likes'),
      eb.selectFrom('comments').select(eb.fn.countAll<number>().as('n')).whereRef('comments.post_id', '=', 'posts.id').as('comments'),
      eb.selectFrom('favorites').select(eb.fn.countAll<number>().as('n')).whereRef('favorites.post_id', '=', 'posts.id').as('favorites'),
      'posts.last_commented_at',
      eb
        .selectFrom('comments')
        .select((c) => c.fn.max('comments.created_at').as('t'))
        .whereRef('comments.post_id', '=', 'posts.id')
        .as('newest_comment'),
    ])
    .execute();
  const tags = await db
    .selectFrom('tags')
    .select((eb) => [
      'tags.id',
      'tags.post_count as stored',
      eb.selectFrom('post_tags').select(eb.fn.countAll<number>().as('n')).whereRef('post_tags.tag_id', '=', 'tags.id').as('actual'),
    ])
    .execute();
  const pools = await db
    .selectFrom('pools')
    .select((eb) => [
      'pools.id',
      'pools.post_count as stored',
      eb.selectFrom('pool_posts').select(eb.fn.countAll<number>().as('n')).whereRef('pool_posts.pool_id', '=', 'pools.id').as('actual'),
    ])
    .execute();
  const comments = await db
    .selectFrom('comments as c')
    .select((eb) => [
      'c.id',
      'c.reply_count as stored',
      eb.selectFrom('comments as r').select(eb.fn.countAll<number>().as('n')).whereRef('r.parent_id', '=', 'c.id').as('actual'),
    ])
    .execute();
  const wrong = (rows: { stored: number; actual: number | null }[]) => rows.filter((r) => r.stored !== Number(r.actual));
  return {
    posts: posts.filter(
      (p) =>
        p.like_count !== Number(p.likes) ||
        p.comment_count !== Number(p.comments) ||
        p.favorite_count !== Number(p.favorites) ||
        (p.last_commented_at === null ? null : Number(p.last_commented_at)) !== (p.newest_comment === null ? null : Number(p.newest_comment)),
    ),
    tags: wrong(tags),
    pools: wrong(pools),
    comments: wrong(comments),
  };
}

/** The tables seeding fills, with their keys. */
const ORDER: Partial<Record<keyof DB, string[]>> = {
  users: ['id'],
  posts: ['id'],
  tags: ['id'],
  post_tags: ['post_id', 'tag_id'],
  pools: ['id'],
  pool_posts: ['pool_id', 'post_id'],
  comments: ['id'],
  likes: ['post_id', 'user_id'],
  favorites: ['post_id', 'user_id'],
  counters: ['name'],
};

/** A sha256 of every row of every seeded table, in key order. */
async function digest(db: Kysely<DB>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [table, keys] of Object.entries(ORDER)) {
    let q = db.selectFrom(table as keyof DB).selectAll();
    for (const k of keys!) q = q.orderBy(sql.ref(k));
    out[table] = createHash('sha256')
      .update(JSON.stringify(await q.execute()))
      .digest('hex');
  }
  return out;
}

eachDatabase('seed: a few hundred posts', (ctx) => {
  let summary: SeedSummary;
  before(async () => {
    summary = await seedDatabase(ctx.database, options(ctx.dataDir, ctx.clock.now()));
    // Fleet mode: the board's media are in a bucket, where the seeded files go as `media migrate` copies them.
    if (ctx.config.mediaStore === 's3') {
      const local = new LocalMediaStore(path.join(ctx.dataDir, 'media'), path.join(ctx.dataDir, 'tmp'));
      assert.equal((await migrateMedia(local, ctx.app.deps.media as S3MediaStore)).failed.length, 0);
    }
  });

  test('the summary matches the tables, with the amounts asked for', async () => {
    const db = ctx.database;
    assert.equal(summary.posts, POSTS);
    assert.equal(await count(db, 'posts'), POSTS);
    assert.equal(await count(db, 'users'), summary.users);
    assert.equal(summary.users, 10); // max(10, posts / 50)
    assert.equal(await count(db, 'tags'), 50); // posts / 20, at least 50
    assert.equal(await count(db, 'post_tags'), summary.postTags);
    assert.ok(Math.abs(summary.postTags / POSTS - 10) < 0.7, `${summary.postTags} links`);
    assert.equal(await count(db, 'likes'), summary.likes);
    assert.ok(summary.likes >= 4 * POSTS && summary.likes <= 5 * POSTS, `${summary.likes} likes`);
    assert.equal(await count(db, 'favorites'), POSTS);
    assert.equal(await count(db, 'comments'), POSTS);
    assert.equal(await count(db, 'pools'), 3);
    assert.equal(await count(db, 'pool_posts'), summary.poolPosts);
  });

  test('every stored counter equals the rows it counts', async () => {
    const wrong = await counterMismatches(ctx.database);
    assert.deepEqual(wrong, { posts: [], tags: [], pools: [], comments: [] });
  });

  test('the board-wide post totals (counters table) match the posts', async () => {
    const db = ctx.database;
    const counters = Object.fromEntries((await db.selectFrom('counters').select(['name', 'value']).execute()).map((r) => [r.name, Number(r.value)]));
    const byRating = await db
      .selectFrom('posts')
      .select(['content_rating', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('content_rating')
      .execute();
    assert.equal(counters.posts, POSTS);
    for (const r of byRating) assert.equal(counters[`posts:${r.content_rating}`], Number(r.n), r.content_rating);
  });

  test('dates are ordered and consistent', async () => {
    const db = ctx.database;
    const until = ctx.clock.now();
    const posts = await db.selectFrom('posts').select(['id', 'created_at', 'updated_at']).orderBy('id').execute();
    posts.forEach((p, i) => {
      assert.equal(p.updated_at, p.created_at);
      if (i > 0) assert.ok(p.created_at > posts[i - 1].created_at, 'newer id, newer date');
    });
    assert.ok(posts[0].created_at >= until - 731 * 86_400_000 && posts[posts.length - 1].created_at <= until);
    const links = await db
      .selectFrom('post_tags')
      .innerJoin('posts', 'posts.id', 'post_tags.post_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .whereRef('post_tags.created_at', '!=', 'posts.created_at')
      .executeTakeFirstOrThrow();
    assert.equal(Number(links.n), 0);
    for (const table of ['likes', 'favorites', 'comments'] as const) {
      const early = await db
        .selectFrom(table)
        .innerJoin('posts', 'posts.id', `${table}.post_id`)
        .innerJoin('users', 'users.id', `${table}.user_id`)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where((eb) =>
          eb.or([
            eb(`${table}.created_at`, '<', eb.ref('posts.created_at')),
            eb(`${table}.created_at`, '<', eb.ref('users.created_at')),
            eb(`${table}.created_at`, '>', until),
          ]),
        )
        .executeTakeFirstOrThrow();
      assert.equal(Number(early.n), 0, `${table} dated before its post or user, or after --until`);
    }
    const badReplies = await db
      .selectFrom('comments as r')
      .innerJoin('comments as p', 'p.id', 'r.parent_id')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) => eb.or([eb('p.post_id', '!=', eb.ref('r.post_id')), eb('p.created_at', '>', eb.ref('r.created_at')), eb('p.id', '>', eb.ref('r.id'))]))
      .executeTakeFirstOrThrow();
    assert.equal(Number(badReplies.n), 0);
    const replies = await db
      .selectFrom('comments')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('parent_id', 'is not', null)
      .executeTakeFirstOrThrow();
    assert.ok(Math.abs(Number(replies.n) / POSTS - 0.3) < 0.08, `${replies.n} replies`);
  });

  test('users: admin first, moderators, tiers, valid names, a real scrypt hash of the printed password', async () => {
    const users = await ctx.database.selectFrom('users').selectAll().orderBy('id').execute();
    assert.equal(users[0].username, 'admin');
    assert.equal(users[0].role, 'admin');
    assert.ok(users.some((u) => u.role === 'moderator'));
    assert.equal(new Set(users.map((u) => u.username_lower)).size, users.length);
    for (const u of users) {
      assert.match(u.username, /^[A-Za-z0-9_.-]{3,32}$/);
      assert.equal(u.username_lower, u.username.toLowerCase());
      assert.ok(['free', 'basic', 'pro', 'enterprise'].includes(u.tier));
      assert.ok(u.last_seen_at! >= u.created_at);
    }
    assert.ok(users.filter((u) => u.last_seen_at! >= ctx.clock.now() - 86_400_000).length >= 1);
    const [scheme, n, r, p, salt, hash] = users[0].password_hash.split('$');
    assert.deepEqual([scheme, n, r, p], ['scrypt', '16384', '8', '1']);
    assert.equal(Buffer.from(salt, 'base64').length, 16);
    const key = scryptSync('password123', Buffer.from(salt, 'base64'), 64, { N: 16384, r: 8, p: 1 });
    assert.ok(timingSafeEqual(key, Buffer.from(hash, 'base64')));
    assert.ok(users.every((u) => u.password_hash === users[0].password_hash));
  });

  test('seeded users can sign in with the printed password', async () => {
    const moderator = await ctx.database.selectFrom('users').select('username').where('role', '=', 'moderator').executeTakeFirstOrThrow();
    for (const username of ['admin', moderator.username]) {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username, password: 'password123' } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().user.username, username);
    }
    const wrong = await ctx.app.inject({ method: 'POST', url: '/api/auth/login', payload: { username: 'admin', password: 'password124' } });
    assert.equal(wrong.statusCode, 401);
  });

  test('tags are valid names, used with a skew, never twice on a post', async () => {
    const tags = await ctx.database.selectFrom('tags').select(['name', 'post_count']).orderBy('post_count', 'desc').execute();
    for (const t of tags) assert.deepEqual(normalizeTagName(t.name), { ok: true, name: t.name });
    assert.ok(tags[0].post_count > 4 * tags[24].post_count, `top ${tags[0].post_count}, 25th ${tags[24].post_count}`);
  });

  test('ratings are mostly safe', async () => {
    const rows = await ctx.database
      .selectFrom('posts')
      .select(['content_rating', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('content_rating')
      .execute();
    const share = Object.fromEntries(rows.map((r) => [r.content_rating, Number(r.n) / POSTS]));
    assert.ok(share.safe > 0.6 && share.safe < 0.8 && share.sketchy > 0.12 && share.unsafe > 0.04, JSON.stringify(share));
  });

  test('each post has its own original on disk, with the stored hash, size, dimensions and phash', async () => {
    const posts = await ctx.database.selectFrom('posts').selectAll().orderBy('id').execute();
    const media = path.join(ctx.dataDir, 'media');
    for (const p of posts) {
      const bytes = fs.readFileSync(path.join(media, p.file_path));
      assert.equal(createHash('sha256').update(bytes).digest('hex'), p.sha256);
      assert.equal(createHash('md5').update(bytes).digest('hex'), p.md5);
      assert.equal(p.file_path, `originals/${p.sha256.slice(0, 2)}/${p.sha256.slice(2, 4)}/${p.sha256}.png`);
      assert.equal(bytes.length, Number(p.file_size));
      assert.ok(fs.existsSync(path.join(media, p.thumb_path)), p.thumb_path);
    }
    assert.equal(summary.mediaFiles, POSTS);
    for (const p of posts.filter((_, i) => i % 37 === 0)) {
      const meta = await sharp(path.join(media, p.file_path)).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height], ['png', p.width, p.height]);
      assert.equal(p.mime, 'image/png');
      assert.equal(await perceptualHash(path.join(media, p.file_path)), p.phash);
      const thumb = await sharp(path.join(media, p.thumb_path)).metadata();
      assert.equal(thumb.format, 'webp');
      assert.equal(Math.max(thumb.width!, thumb.height!), 300);
      assert.equal((await sharp(path.join(media, p.thumb_path)).raw().toBuffer()).length, thumb.width! * thumb.height! * thumb.channels!);
    }
  });

  test('the API serves the seeded board', async () => {
    const db = ctx.database;
    // Every rating, named (a visitor is otherwise shown safe posts only).
    const list = await getJson(ctx.app, `/api/posts?limit=5&q=${encodeURIComponent(EVERY_RATING)}`);
    assert.equal(list.status, 200);
    assert.equal(list.body.totalPosts, POSTS);
    assert.equal(list.body.totalPages, POSTS / 5);
    assert.equal(list.body.posts[0].id, String(POSTS), 'newest first: the highest id');
    const newest = await db.selectFrom('posts').selectAll().where('id', '=', POSTS).executeTakeFirstOrThrow();
    assert.equal(list.body.posts[0].likes, newest.like_count);
    const tagCount = await count(db, 'post_tags');
    assert.ok(tagCount > 0);

    const mostLiked = await getJson(ctx.app, `/api/posts?sortBy=most_liked&limit=1&q=${encodeURIComponent(EVERY_RATING)}`);
    const top = await db
      .selectFrom('posts')
      .select((eb) => eb.fn.max('like_count').as('m'))
      .executeTakeFirstOrThrow();
    assert.equal(mostLiked.body.posts[0].likes, Number(top.m));

    const detail = await getJson(ctx.app, `/api/posts/${newest.id}`);
    assert.equal(detail.status, 200);
    assert.equal(detail.body.imageUrl, `/media/${newest.file_path}`);
    assert.deepEqual(detail.body.stats, { likes: newest.like_count, comments: newest.comment_count, favorites: newest.favorite_count });
    const file = await ctx.app.inject({ method: 'GET', url: detail.body.thumbnail });
    assert.equal(file.statusCode, 200);

    const tags = await getJson(ctx.app, '/api/tags?limit=1');
    const topTag = await db.selectFrom('tags').select(['name', 'post_count']).orderBy('post_count', 'desc').orderBy('name').limit(1).executeTakeFirstOrThrow();
    assert.deepEqual([tags.body.tags[0].name, tags.body.tags[0].postsCount], [topTag.name, topTag.post_count]);
    const tagged = await getJson(ctx.app, `/api/posts?tag=${topTag.name}&limit=1&q=${encodeURIComponent(EVERY_RATING)}`);
    assert.equal(tagged.body.totalPosts, topTag.post_count);

    const stats = await getJson(ctx.app, '/api/stats');
    assert.equal(stats.body.totalPosts, POSTS);
    assert.equal(stats.body.totalComments, POSTS);
    assert.equal(stats.body.totalUsers, summary.users);
    assert.ok(stats.body.activeUsers24h >= 1);
  });

  // SQLite's title index (FTS5): seeding leaves it merged, and searches still find every title.
  if (ctx.kind === 'sqlite')
    test('the title index is left in one segment, and a title search finds what a scan finds', async () => {
      const db = ctx.database;
      const segments = await sql<{ n: number }>`SELECT count(DISTINCT segid) AS n FROM posts_fts_idx`.execute(db);
      assert.equal(Number(segments.rows[0].n), 1);
      const word = (await db.selectFrom('posts').select('title').where('id', '=', 7).executeTakeFirstOrThrow()).title.split(' ')[0].toLowerCase();
      const scanned = await db
        .selectFrom('posts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(sql<boolean>`lower(title) LIKE ${`%${word}%`}`)
        .executeTakeFirstOrThrow();
      const listed = await getJson(ctx.app, `/api/posts?search=${encodeURIComponent(word)}&limit=1&q=${encodeURIComponent(EVERY_RATING)}`);
      assert.equal(listed.body.totalPosts, Number(scanned.n), word);
    });

  test('seeding a database that has posts is refused and changes nothing', async () => {
    const before = await digest(ctx.database);
    await assert.rejects(seedDatabase(ctx.database, options(ctx.dataDir, ctx.clock.now(), 99)), (err) => {
      assert.ok(err instanceof SeedRefused);
      assert.match(err.message, /already has 300 posts/);
      return true;
    });
    assert.deepEqual(await digest(ctx.database), before);
  });
});

for (const kind of databaseKinds()) {
  describe(`seed: reproducible [${kind}]`, () => {
    const until = Date.parse('2026-06-15T12:00:00.000Z');
    async function seeded(k: DbKind, seed: number, media: boolean) {
      const fresh = await freshDatabase(k);
      try {
        const o = { ...options(fresh.dataDir, until, seed), posts: 60, mediaDir: media ? path.join(fresh.dataDir, 'media') : null };
        await seedDatabase(fresh.database, o);
        return await digest(fresh.database);
      } finally {
        await fresh.cleanup();
      }
    }

    test('the same seed and --until give identical rows; another seed gives different rows', async () => {
      const [a, b, c] = [await seeded(kind, 5, true), await seeded(kind, 5, true), await seeded(kind, 6, true)];
      assert.deepEqual(a, b);
      for (const table of ['users', 'posts', 'tags', 'post_tags', 'likes', 'favorites', 'comments', 'pools', 'pool_posts']) {
        assert.notEqual(a[table], c[table], `${table} should differ between seeds`);
      }
    });

    test('--no-media gives identical rows for the same seed too', async () => {
      assert.deepEqual(await seeded(kind, 5, false), await seeded(kind, 5, false));
    });

    test('--no-media posts have stand-in hashes of their own: no post is left without md5', async () => {
      const fresh = await freshDatabase(kind);
      try {
        await seedDatabase(fresh.database, { ...options(fresh.dataDir, until), posts: 20, mediaDir: null });
        const rows = await fresh.database.selectFrom('posts').select(['sha256', 'md5']).execute();
        assert.equal(rows.length, 20);
        for (const r of rows) assert.match(r.md5 ?? 'null', /^[0-9a-f]{32}$/);
        assert.equal(new Set(rows.map((r) => r.md5)).size, 20);
      } finally {
        await fresh.cleanup();
      }
    });

    if (kind === 'postgres') {
      test('identity sequences continue after the seeded ids', async () => {
        const fresh = await freshDatabase(kind);
        try {
          const o = { ...options(fresh.dataDir, until), posts: 20, mediaDir: null };
          await seedDatabase(fresh.database, o);
          const { id } = await fresh.database
            .insertInto('tags')
            .values({ name: 'brand_new', post_count: 0, created_at: until })
            .returning('id')
            .executeTakeFirstOrThrow();
          assert.equal(id, 51);
        } finally {
          await fresh.cleanup();
        }
      });
    }
  });
}
