import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { sql, type Kysely } from 'kysely';
import { databaseKinds, freshDatabase, type DbKind } from '../../test/helpers.ts';
import { MIGRATIONS, migrateToLatest } from './migrate.ts';
import { DEVELOPMENT_MIGRATIONS } from './development-migrations.ts';
import { counter } from './counters.ts';
import { createUser, postRow } from '../../test/factories.ts';

const DB_DIR = path.dirname(fileURLToPath(import.meta.url));
const MIGRATIONS_DIR = path.join(DB_DIR, 'migrations');
const INITIAL = '001-initial-schema';

/** sha256 of a file's text (line ends as LF, so a checkout with CRLF hashes the same). */
const sha256 = (file: string) => crypto.createHash('sha256').update(fs.readFileSync(file, 'utf8').replace(/\r\n/g, '\n')).digest('hex');

test('a shipped migration is never edited: every file in src/db/migrations/ matches its committed checksum', () => {
  const committed = JSON.parse(fs.readFileSync(path.join(MIGRATIONS_DIR, 'checksums.json'), 'utf8')) as Record<string, string>;
  const files = fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((f) => f.endsWith('.ts'))
    .sort();
  assert.deepEqual(
    files,
    Object.keys(committed).sort(),
    'src/db/migrations/checksums.json lists every migration file: a new migration adds its files with their sha256, a shipped one is never removed',
  );
  for (const file of files) {
    assert.equal(
      sha256(path.join(MIGRATIONS_DIR, file)),
      committed[file],
      `${file} is not the file that shipped: a shipped migration must not be edited; add a new migration instead`,
    );
  }
});

test('every listed migration is a file in src/db/migrations/', () => {
  for (const name of Object.keys(MIGRATIONS)) assert.ok(fs.existsSync(path.join(MIGRATIONS_DIR, `${name}.ts`)), name);
});

test('src/db/ (and so every migration) imports nothing from src/ outside src/db/', () => {
  const files = (fs.readdirSync(DB_DIR, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    .map((f) => path.join(DB_DIR, f));
  assert.ok(files.some((f) => f.startsWith(MIGRATIONS_DIR)));
  for (const file of files) {
    for (const { fileName: spec } of ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true).importedFiles) {
      if (!spec.startsWith('.') && !path.isAbsolute(spec)) continue; // a package
      const target = path.resolve(path.dirname(file), spec);
      assert.ok(target.startsWith(DB_DIR + path.sep), `${path.relative(DB_DIR, file)} imports ${spec}, outside src/db/`);
    }
  }
});

/** What a schema holds, by name (the full comparison was done when the development migrations were merged). */
async function objects(db: Kysely<any>, kind: DbKind): Promise<string[]> {
  const rows =
    kind === 'sqlite'
      ? await sql<{ o: string }>`SELECT type || ' ' || name || ' ' || coalesce(sql, '') AS o FROM sqlite_master ORDER BY name`.execute(db)
      : await sql<{ o: string }>`SELECT relkind::text || ' ' || relname AS o FROM pg_class WHERE relnamespace = current_schema()::regnamespace
        UNION ALL SELECT 't ' || tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
        UNION ALL SELECT 'f ' || proname FROM pg_proc WHERE pronamespace = current_schema()::regnamespace ORDER BY 1`.execute(db);
  return rows.rows.map((r) => r.o);
}

async function recordMigrations(db: Kysely<any>, names: string[]): Promise<void> {
  await db.deleteFrom('kysely_migration').execute();
  const at = Date.parse('2026-05-01T00:00:00Z');
  await db
    .insertInto('kysely_migration')
    .values(names.map((name, i) => ({ name, timestamp: new Date(at + i * 1000).toISOString() })))
    .execute();
}

const recorded = async (db: Kysely<any>) => (await db.selectFrom('kysely_migration').select('name').orderBy('name').execute()).map((r) => r.name);

for (const kind of databaseKinds()) {
  test(`a database made by the development migrations is taken as at the initial schema, unchanged, then migrated on [${kind}]`, async () => {
    const { database, cleanup } = await freshDatabase(kind, { lastMigration: INITIAL });
    const latest = await freshDatabase(kind);
    try {
      const db = database as Kysely<any>;
      const schema = await objects(db, kind);
      // As a board or benchmark dataset made before the migrations were merged.
      await recordMigrations(db, DEVELOPMENT_MIGRATIONS);
      await migrateToLatest(db, kind, INITIAL);
      assert.deepEqual(await recorded(db), [INITIAL]);
      assert.deepEqual(await objects(db, kind), schema);
      await migrateToLatest(db, kind);
      assert.deepEqual(await recorded(db), Object.keys(MIGRATIONS));
      assert.deepEqual(await objects(db, kind), await objects(latest.database as Kysely<any>, kind));
      await migrateToLatest(db, kind);
      assert.deepEqual(await recorded(db), Object.keys(MIGRATIONS));
    } finally {
      await cleanup();
      await latest.cleanup();
    }
  });

  test(`002-posts-md5 on a board at the initial schema: its posts keep their rows, md5 empty, and the data version stays [${kind}]`, async () => {
    const { database, cleanup } = await freshDatabase(kind, { lastMigration: INITIAL });
    try {
      const db = database as Kysely<any>;
      const userId = await createUser(database, { username: 'old' });
      const spec = { uploaderId: userId, title: 'before md5', createdAt: Date.parse('2026-01-01T00:00:00Z') };
      const { id: postId } = await db
        .insertInto('posts')
        .values({ ...postRow(spec), md5: undefined, tag_string: 'kept' }) // no md5 column yet
        .returning('id')
        .executeTakeFirstOrThrow();
      const before = await db.selectFrom('posts').selectAll().where('id', '=', postId).executeTakeFirstOrThrow();
      await migrateToLatest(db, kind);
      const after = await db.selectFrom('posts').selectAll().where('id', '=', postId).executeTakeFirstOrThrow();
      // Later migrations add columns too: 013's source and parent, 018's last comment time, empty.
      assert.deepEqual(after, { ...before, md5: null, source: null, parent_id: null, last_commented_at: null });
      // Filling md5 is no edit (as a like is none): caches keyed to the data version stay.
      const version = await counter(database, 'version');
      await db
        .updateTable('posts')
        .set({ md5: 'a'.repeat(32) })
        .where('id', '=', postId)
        .execute();
      assert.equal(await counter(database, 'version'), version);
      await db.updateTable('posts').set({ title: 'edited' }).where('id', '=', postId).execute();
      assert.equal(await counter(database, 'version'), version + 1, 'an edit still moves it');
    } finally {
      await cleanup();
    }
  });

  test(`018-posts-last-commented on a board with comments: each post gets its newest comment's time, a post without any null [${kind}]`, async () => {
    const { database, cleanup } = await freshDatabase(kind, { lastMigration: '017-commit-order-lock' });
    try {
      const db = database as Kysely<any>;
      const userId = await createUser(database, { username: 'talker' });
      const at = Date.parse('2026-01-01T00:00:00Z');
      const ids: number[] = [];
      for (let i = 0; i < 3; i++) {
        const row = { ...postRow({ uploaderId: userId, title: `post ${i}`, createdAt: at }), last_commented_at: undefined };
        ids.push((await db.insertInto('posts').values(row).returning('id').executeTakeFirstOrThrow()).id);
      }
      const times = [at + 5_000, at + 90_000, at + 30_000];
      for (const t of times)
        await db.insertInto('comments').values({ post_id: ids[0], user_id: userId, content: 'hi', reply_count: 0, created_at: t }).execute();
      await db
        .insertInto('comments')
        .values({ post_id: ids[1], user_id: userId, content: 'one', reply_count: 0, created_at: at + 7_000 })
        .execute();
      await migrateToLatest(db, kind);
      const rows = await db.selectFrom('posts').select(['id', 'last_commented_at']).where('id', 'in', ids).orderBy('id').execute();
      assert.deepEqual(
        rows.map((r) => (r.last_commented_at === null ? null : Number(r.last_commented_at))),
        [at + 90_000, at + 7_000, null],
      );
    } finally {
      await cleanup();
    }
  });

  test(`023-api-key-limits on a board with keys: each keeps what its owner's role let it do, with no expiry and any address [${kind}]`, async () => {
    const { database, cleanup } = await freshDatabase(kind, { lastMigration: '022-saved-searches' });
    try {
      const db = database as Kysely<any>;
      for (const role of ['user', 'moderator', 'admin']) {
        const userId = await createUser(database, { username: `${role}-owner`, role, tier: 'pro' });
        await db
          .insertInto('api_keys')
          .values({
            user_id: userId,
            name: role,
            key_hash: role.padEnd(64, '0'),
            key_prefix: 'ib_x',
            is_active: 1,
            created_at: 1,
            last_used: null,
            revoked_at: null,
          })
          .execute();
      }
      await migrateToLatest(db, kind);
      const rows = await db.selectFrom('api_keys').select(['name', 'scopes', 'expires_at', 'allowed_addresses', 'last_used_ip']).orderBy('id').execute();
      const member = 'read posts:write comments:write reactions:write pools:write';
      assert.deepEqual(
        rows,
        [member, `${member} moderation`, `${member} moderation`].map((scopes, i) => ({
          name: ['user', 'moderator', 'admin'][i],
          scopes,
          expires_at: null,
          allowed_addresses: null,
          last_used_ip: null,
        })),
      );
    } finally {
      await cleanup();
    }
  });

  test(`a database that ran only some of the development migrations is refused, untouched [${kind}]`, async () => {
    const { database, cleanup } = await freshDatabase(kind);
    try {
      const db = database as Kysely<any>;
      const some = DEVELOPMENT_MIGRATIONS.slice(0, 13);
      await recordMigrations(db, some);
      await assert.rejects(migrateToLatest(db, kind), /made by a development version whose last migration was 013-posts-by-likes/);
      assert.deepEqual(await recorded(db), some);
    } finally {
      await cleanup();
    }
  });
}
