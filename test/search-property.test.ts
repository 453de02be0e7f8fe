// Random boards and random queries in the language: every page and total of GET /api/posts?q=
// equals a plain evaluation of the query over every post (test/search-model.ts).
import { plainTags } from '../src/modules/tags/tag-name-rules.ts';
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import fc from 'fast-check';
import { eachDatabase, type Ctx } from './helpers.ts';
import { addComment, addFavorite, createPool, createUser, postRow } from './factories.ts';
import { insertPost } from '../src/modules/posts/posts.repo.ts';
import { evaluate, matches, type ModelPost, ORDER_NAMES, type OrderName, type Q, queryArb, queryText, setQueryArb, type World } from './search-model.ts';
import { register, type Account } from './auth-helpers.ts';
import { DEFAULT_SEARCH } from '../src/search/settings.ts';
import { mulberry } from './prng.ts';

const DAY = 86_400_000;
/** Tag names with very different frequencies: a few on most posts, most on a few. */
const TAGS = ['cat', 'dog', 'sky', 'sea', 'blue_hair', 'red_hair', 'long_hair', 'smile', 'tree', 'night', 'rain', 'car', 'flower_(plant)', 'star:wars'];
const WORDS = ['sunset', 'harbour', 'portrait', 'study', 'night', 'walk', 'blue', 'morning', 'city', 'garden'];

/**
 * A board of random posts, written as the app writes them, and its model. `inOrder`: posts are
 * dated in upload order (as uploads are), else some are dated before older ones (an import).
 */
async function makeWorld(ctx: Ctx, seed: number, inOrder = false): Promise<World> {
  const rand = mulberry(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const db = ctx.database;
  const now = ctx.clock.now();
  const users = ['alice', 'Bob', 'carol', 'dave'];
  const userIds = new Map<string, number>();
  for (const name of users) userIds.set(name, await createUser(db, { username: name }));
  const posts: ModelPost[] = [];
  for (let i = 0; i < 160; i++) {
    // Some posts share a date, and some are dated before older ids: ties and imports.
    const created =
      i % 17 === 0 && posts.length
        ? posts[posts.length - 1].created
        : inOrder
          ? now - (160 - i) * 5 * DAY
          : now - Math.floor(rand() * 800 * DAY) - (i % 5) * 3_600_000;
    const tags = TAGS.filter((_, k) => rand() < 0.8 / (k + 1) ** 0.9);
    const kind = rand();
    const mediaType = kind < 0.2 ? 'video' : 'image';
    const animated = mediaType === 'image' && kind > 0.85;
    const uploader = pick(users);
    const title = `${pick(WORDS)} ${pick(WORDS)}`;
    const row = postRow({
      uploaderId: userIds.get(uploader)!,
      title,
      tags,
      rating: pick(['safe', 'safe', 'sketchy', 'unsafe'] as const),
      likeCount: Math.floor(rand() * rand() * 60),
      createdAt: created,
      mediaType,
      width: 1 + Math.floor(rand() * 60),
      height: 1 + Math.floor(rand() * 60),
      fileSize: Math.floor(rand() * 40_000),
    });
    row.duration = mediaType === 'video' ? pick([0.5, 1.5, 3, 10, 20]) : null;
    row.is_animated = animated ? 1 : 0;
    const id = await insertPost(db, row, plainTags(tags));
    posts.push({
      id,
      title,
      tags: [...tags].sort(),
      rating: row.content_rating as ModelPost['rating'],
      uploader,
      favBy: [],
      pools: [],
      likes: row.like_count ?? 0,
      favs: 0,
      comments: 0,
      width: row.width,
      height: row.height,
      filesize: row.file_size,
      duration: row.duration ?? null,
      mediaType,
      animated,
      created,
      sha256: row.sha256,
      md5: row.md5 ?? '',
      parent: null,
    });
  }
  // Families: a post's parent is an older post (so no cycle), a few parents with several children.
  for (const [i, p] of posts.entries()) {
    if (i === 0 || rand() >= 0.25) continue;
    const parent = posts[Math.floor(rand() * rand() * i)];
    await db.updateTable('posts').set({ parent_id: parent.id }).where('id', '=', p.id).execute();
    p.parent = parent.id;
  }
  for (const p of posts) {
    for (const u of users) {
      if (rand() < 0.15) {
        await addFavorite(db, userIds.get(u)!, p.id, now);
        p.favBy.push(u);
        p.favs++;
      }
    }
    const comments = rand() < 0.3 ? 1 + Math.floor(rand() * 3) : 0;
    for (let k = 0; k < comments; k++) await addComment(db, { postId: p.id, userId: userIds.get('alice')!, createdAt: now });
    p.comments = comments;
  }
  const pools: number[] = [];
  for (let k = 0; k < 3; k++) {
    const members = posts.filter(() => rand() < 0.1);
    const poolId = await createPool(db, { creatorId: userIds.get('alice')!, name: `pool ${k}`, postIds: members.map((p) => p.id), at: now });
    for (const p of members) p.pools.push(poolId);
    pools.push(poolId);
  }
  return { posts, tags: TAGS, users, pools, now };
}

// Boards dated in upload order, and imported ones (ids out of date order, where the in-memory strategies walk the newest order).
const RUNS = [
  ['auto', false],
  ['sql', false],
  ['driven', false],
  ['columns', true],
  ['columns', false],
] as const;
for (const [strategy, inOrder] of RUNS) {
  eachDatabase(
    `the query language against a plain evaluation (strategy ${strategy}, ${inOrder ? 'dated in upload order' : 'imported'})`,
    (ctx) => {
      let world: World;
      // Signed in, with no filters of their own: every post is listed (a visitor would see the safe ones only).
      let viewer: Account;
      let filtered: Account;
      before(async () => {
        world = await makeWorld(ctx, 20261125, inOrder);
        viewer = await register(ctx.app, 'viewer');
        filtered = await register(ctx.app, 'filtered');
      });

      const page = async (params: Record<string, string | number>, who = viewer) => {
        const qs = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]));
        const res = await ctx.app.inject({ method: 'GET', url: `/api/posts?${qs}`, headers: who.headers });
        assert.equal(res.statusCode, 200, `${qs}: ${res.body}`);
        return res.json() as { posts: { id: string }[]; totalPosts: number; totalIsEstimate: boolean; hiddenPosts: number };
      };

      test('every page and total equal the plain evaluation, for random queries and every order', async () => {
        await fc.assert(
          fc.asyncProperty(
            queryArb(world),
            fc.constantFrom<OrderName | null>(null, ...ORDER_NAMES),
            fc.nat(100),
            fc.integer({ min: 1, max: 40 }),
            fc.nat(2_000_000_000),
            fc.nat(),
            async (q, order, offset, limit, seed, style) => {
              const text = `${queryText(q, style)}${order ? ` order:${order}` : ''}`;
              const want = evaluate(world, q, order ?? 'newest', seed);
              const got = await page({ q: text, offset, limit, seed });
              assert.deepEqual(
                got.posts.map((p) => Number(p.id)),
                want.slice(offset, offset + limit).map((p) => p.id),
                `page of ${text}`,
              );
              assert.equal(got.totalPosts, want.length, `total of ${text}`);
              assert.equal(got.totalIsEstimate, false);
            },
          ),
          { numRuns: 300, seed: 42 },
        );
      });

      test('the old parameters keep their meaning and are ANDed with q', async () => {
        await fc.assert(
          fc.asyncProperty(
            queryArb(world),
            fc.constantFrom(...world.tags),
            fc.constantFrom('safe', 'sketchy', 'unsafe'),
            fc.nat(20),
            fc.constantFrom('most_liked', 'oldest', 'newest') as fc.Arbitrary<'most_liked' | 'oldest' | 'newest'>,
            fc.nat(),
            // A search term: part of a title word, or a tag's name (it matches either).
            fc.option(
              fc.oneof(
                fc.constantFrom(...world.tags),
                fc.constantFrom(...WORDS).map((w) => w.slice(1, 5)),
              ),
              { nil: undefined },
            ),
            async (q, tag, rating, minLikes, sortBy, style, search) => {
              const text = queryText(q, style);
              const found = (p: ModelPost) => search === undefined || p.title.toLowerCase().includes(search) || p.tags.includes(search);
              const extra = (p: ModelPost) => p.tags.includes(tag) && p.rating === rating && p.likes >= minLikes && found(p);
              let want = evaluate(world, q, sortBy === 'oldest' ? 'oldest' : 'newest', 0, extra);
              // most_liked: likes first, then newest (its tie-break since before the language).
              if (sortBy === 'most_liked') want = [...want].sort((a, b) => b.likes - a.likes || b.created - a.created || b.id - a.id);
              const got = await page({ q: text, tag, contentRating: rating, minLikes, sortBy, limit: 100, ...(search === undefined ? {} : { search }) });
              assert.deepEqual(
                got.posts.map((p) => Number(p.id)),
                want.slice(0, 100).map((p) => p.id),
                `${text} with tag=${tag} rating=${rating} minLikes=${minLikes} sortBy=${sortBy} search=${search}`,
              );
              assert.equal(got.totalPosts, want.length);
            },
          ),
          { numRuns: 100, seed: 7 },
        );
      });

      test("a member's filters leave out exactly the posts a blacklist entry matches and the ratings not shown; hiddenPosts counts them", async () => {
        const names = (q: Q): boolean => (q.k === 'term' ? q.term.t === 'rating' : q.k === 'not' ? names(q.q) : q.qs.some(names));
        await fc.assert(
          fc.asyncProperty(
            fc.option(queryArb(world), { nil: null }),
            fc.array(queryArb(world), { maxLength: 3 }),
            fc.subarray(['safe', 'sketchy', 'unsafe'] as const, { minLength: 1 }),
            fc.constantFrom<OrderName | null>(null, ...ORDER_NAMES),
            fc.nat(60),
            fc.integer({ min: 1, max: 40 }),
            fc.nat(),
            async (q, blacklist, ratings, order, offset, limit, style) => {
              const entries = blacklist.map((b) => queryText(b, style));
              fc.pre(entries.every((e) => e.length <= 1000));
              const saved = await ctx.app.inject({
                method: 'PUT',
                url: '/api/users/me/preferences',
                headers: filtered.headers,
                payload: { blacklist: entries, ratings },
              });
              assert.equal(saved.statusCode, 200, saved.body);
              const shown = (p: ModelPost) => (q !== null && names(q)) || ratings.includes(p.rating);
              const want = evaluate(world, q, order ?? 'newest', 3, (p) => shown(p) && !blacklist.some((b) => matches(p, b, world)));
              const unfiltered = evaluate(world, q, order ?? 'newest', 3).length;
              const text = `${q === null ? '' : queryText(q, style)}${order ? ` order:${order}` : ''}`;
              const got = await page({ q: text, offset, limit, seed: 3 }, filtered);
              const at = `${text} with blacklist ${JSON.stringify(entries)} and ratings ${ratings}`;
              assert.deepEqual(
                got.posts.map((p) => Number(p.id)),
                want.slice(offset, offset + limit).map((p) => p.id),
                at,
              );
              assert.equal(got.totalPosts, want.length, at);
              assert.equal(got.hiddenPosts, unfiltered - want.length, at);
            },
          ),
          { numRuns: 60, seed: 25 },
        );
      });
    },
    { search: { ...DEFAULT_SEARCH, strategy } },
  );
}

for (const inOrder of [true, false]) {
  eachDatabase(
    `sets alone (tags, user:, fav:, pool:, rating:, type:, title:, id:, date:, age:), from memory, against a plain evaluation (${inOrder ? 'dated in upload order' : 'imported'})`,
    (ctx) => {
      let world: World;
      let viewer: Account;
      before(async () => {
        world = await makeWorld(ctx, 1125, inOrder);
        viewer = await register(ctx.app, 'viewer');
      });

      test('every page and total equal the plain evaluation, in every order the sets serve', async () => {
        await fc.assert(
          fc.asyncProperty(
            setQueryArb(world),
            fc.constantFrom<OrderName | null>(null, 'newest', 'oldest', 'id', 'id_asc'),
            fc.nat(60),
            fc.integer({ min: 1, max: 40 }),
            fc.nat(),
            async (q, order, offset, limit, style) => {
              const text = `${queryText(q, style)}${order ? ` order:${order}` : ''}`;
              const want = evaluate(world, q, order ?? 'newest', 0);
              const res = await ctx.app.inject({
                method: 'GET',
                url: `/api/posts?${new URLSearchParams({ q: text, offset: String(offset), limit: String(limit) })}`,
                headers: viewer.headers,
              });
              assert.equal(res.statusCode, 200, res.body);
              const got = res.json() as { posts: { id: string }[]; totalPosts: number };
              assert.deepEqual(
                got.posts.map((p) => Number(p.id)),
                want.slice(offset, offset + limit).map((p) => p.id),
                `page of ${text}`,
              );
              assert.equal(got.totalPosts, want.length, `total of ${text}`);
              // Asked again at the same data version: the total is known, and the page is found by testing posts from the top.
              const again = await ctx.app.inject({
                method: 'GET',
                url: `/api/posts?${new URLSearchParams({ q: text, offset: String(offset), limit: String(limit) })}`,
                headers: viewer.headers,
              });
              assert.deepEqual(again.json(), got, `asked again: ${text}`);
              // Newest first, the posts after a cursor: the ones the plain evaluation puts after it, and their total.
              const cursor = want[offset];
              if ((order ?? 'newest') !== 'newest' || !cursor) return;
              const after = await ctx.app.inject({
                method: 'GET',
                url: `/api/posts?${new URLSearchParams({ q: text, before: String(cursor.id), limit: String(limit) })}`,
                headers: viewer.headers,
              });
              const rest = want.slice(offset + 1);
              assert.deepEqual(
                (after.json() as { posts: { id: string }[] }).posts.map((p) => Number(p.id)),
                rest.slice(0, limit).map((p) => p.id),
                `after ${cursor.id}: ${text}`,
              );
              assert.equal((after.json() as { totalPosts: number }).totalPosts, rest.length, `total after ${cursor.id}: ${text}`);
            },
          ),
          { numRuns: 200, seed: 11 },
        );
      });
    },
    { search: { ...DEFAULT_SEARCH, strategy: 'sets' } },
  );
}
