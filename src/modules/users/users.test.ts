import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eachDatabase, getJson, type Ctx } from '../../../test/helpers.ts';
import { addComment, addFavorite, addLike, createPost, createUser } from '../../../test/factories.ts';

const DAY = 86_400_000;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

type Name = 'alice' | 'Bob' | 'carol' | 'MixedCase';
const USERS: { name: Name; bio: string; avatarPath: string | null; createdDaysAgo: number }[] = [
  { name: 'alice', bio: 'I photograph sunsets.', avatarPath: 'avatars/ab/alice.webp', createdDaysAgo: 300 },
  { name: 'Bob', bio: '', avatarPath: null, createdDaysAgo: 200 },
  { name: 'carol', bio: 'Lurker.', avatarPath: null, createdDaysAgo: 100 },
  { name: 'MixedCase', bio: '', avatarPath: null, createdDaysAgo: 1 },
];
/** Who uploaded each post; then what each user did to which post. Received and given differ on purpose. */
const UPLOADS: Name[] = ['alice', 'alice', 'Bob', 'Bob', 'Bob'];
const LIKES: [Name, number][] = [
  ['alice', 2],
  ['alice', 3],
  ['Bob', 0],
  ['carol', 0],
  ['carol', 1],
];
const FAVORITES: [Name, number][] = [
  ['alice', 2],
  ['Bob', 0],
  ['Bob', 1],
  ['Bob', 2],
];
const COMMENTS: [Name, number][] = [
  ['alice', 2],
  ['alice', 2],
  ['alice', 0],
  ['Bob', 0],
];

eachDatabase('GET /api/users/<username>', (ctx: Ctx) => {
  const created: Record<string, number> = {};

  before(async () => {
    const db = ctx.database;
    const now = ctx.clock.now();
    const ids = {} as Record<Name, number>;
    for (const u of USERS) {
      created[u.name] = now - u.createdDaysAgo * DAY + 7;
      ids[u.name] = await createUser(db, { username: u.name, bio: u.bio, avatarPath: u.avatarPath, createdAt: created[u.name] });
    }
    const posts: number[] = [];
    for (const [i, by] of UPLOADS.entries()) posts.push(await createPost(db, { uploaderId: ids[by], createdAt: now - (10 - i) * DAY }));
    for (const [who, p] of LIKES) await addLike(db, ids[who], posts[p], now - DAY);
    for (const [who, p] of FAVORITES) await addFavorite(db, ids[who], posts[p], now - DAY);
    for (const [who, p] of COMMENTS) await addComment(db, { postId: posts[p], userId: ids[who], createdAt: now - DAY });
  });

  const expectedStats = (name: Name) => ({
    uploads: UPLOADS.filter((u) => u === name).length,
    comments: COMMENTS.filter(([u]) => u === name).length,
    favorites: FAVORITES.filter(([u]) => u === name).length,
    likes: LIKES.filter(([u]) => u === name).length,
  });

  test('a profile shows username, bio, avatar, createdAt and what the user did', async () => {
    const res = await getJson(ctx.app, '/api/users/alice');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      username: 'alice',
      bio: 'I photograph sunsets.',
      avatar: '/media/avatars/ab/alice.webp',
      createdAt: new Date(created.alice).toISOString(),
      stats: expectedStats('alice'),
    });
    assert.match(res.body.createdAt, ISO_MS);
  });

  test('stats count what each user gave, not what their posts received', async () => {
    for (const u of USERS) {
      const res = await getJson(ctx.app, `/api/users/${u.name}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.stats, expectedStats(u.name), u.name);
    }
    // alice's two posts received three likes and two favorites; she gave two likes and one favorite.
    assert.deepEqual(expectedStats('alice'), { uploads: 2, comments: 3, favorites: 1, likes: 2 });
  });

  test('lookup ignores case and answers with the name as registered', async () => {
    for (const [asked, stored] of [
      ['ALICE', 'alice'],
      ['bob', 'Bob'],
      ['BOB', 'Bob'],
      ['mixedcase', 'MixedCase'],
      ['mIXEDcASE', 'MixedCase'],
    ]) {
      const res = await getJson(ctx.app, `/api/users/${asked}`);
      assert.equal(res.status, 200, asked);
      assert.equal(res.body.username, stored);
      assert.deepEqual(res.body.stats, expectedStats(stored as Name));
    }
  });

  test('without an avatar the default avatar path is given, and it is served', async () => {
    const res = await getJson(ctx.app, '/api/users/Bob');
    assert.equal(res.body.bio, '');
    assert.match(res.body.avatar, /^\/\S+$/, 'a relative path');
    assert.doesNotMatch(res.body.avatar, /^\/media\//);
    const other = await getJson(ctx.app, '/api/users/carol');
    assert.equal(other.body.avatar, res.body.avatar, 'everyone without an avatar gets the same default');
    const img = await ctx.app.inject({ method: 'GET', url: res.body.avatar });
    assert.equal(img.statusCode, 200);
  });

  test('an unknown user is 404 with { error, status }', async () => {
    for (const name of ['nobody', 'alic', 'alice2']) {
      const res = await getJson(ctx.app, `/api/users/${name}`);
      assert.equal(res.status, 404, name);
      assert.equal(res.body.status, 404);
      assert.equal(typeof res.body.error, 'string');
    }
  });
});
