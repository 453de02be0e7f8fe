import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * counters: totals kept exact by triggers in the same transaction as each post change
 * (`posts`, `posts:<rating>`), and `version`, bumped when a post is added, deleted or edited
 * (rating, title, tags: an edit sets updated_at), so caches can be keyed to the data. Likes,
 * favorites and comments move their own counters and leave the version alone. Title search: an FTS5 trigram index (SQLite) or a pg_trgm GIN index
 * (PostgreSQL) answers "title contains" without reading every title.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('counters')
    .addColumn('name', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .execute();
  await sql`INSERT INTO counters (name, value) SELECT 'posts', count(*) FROM posts`.execute(db);
  for (const r of ['safe', 'sketchy', 'unsafe']) {
    await sql`INSERT INTO counters (name, value) SELECT ${`posts:${r}`}, count(*) FROM posts WHERE content_rating = ${r}`.execute(db);
  }
  await sql`INSERT INTO counters (name, value) VALUES ('version', 1)`.execute(db);
  // Three ratings make a poor index: with it, "rating + most liked" sorted every post of the rating
  // instead of walking the likes index. Rating-only totals now come from the counters.
  await db.schema.dropIndex('posts_rating').execute();
  if (dialect === 'sqlite') await sqliteUp(db);
  else await postgresUp(db);
}

async function sqliteUp(db: Kysely<any>): Promise<void> {
  const bump = (sign: string, row: string) => `
    UPDATE counters SET value = value ${sign} 1 WHERE name = 'posts';
    UPDATE counters SET value = value ${sign} 1 WHERE name = 'posts:' || ${row}.content_rating;`;
  for (const stmt of [
    `CREATE TRIGGER posts_counted_insert AFTER INSERT ON posts BEGIN ${bump('+', 'new')}
       UPDATE counters SET value = value + 1 WHERE name = 'version'; END`,
    `CREATE TRIGGER posts_counted_delete AFTER DELETE ON posts BEGIN ${bump('-', 'old')}
       UPDATE counters SET value = value + 1 WHERE name = 'version'; END`,
    `CREATE TRIGGER posts_counted_update AFTER UPDATE OF content_rating, title, updated_at ON posts BEGIN
       UPDATE counters SET value = value - 1 WHERE name = 'posts:' || old.content_rating;
       UPDATE counters SET value = value + 1 WHERE name = 'posts:' || new.content_rating;
       UPDATE counters SET value = value + 1 WHERE name = 'version'; END`,
    `CREATE VIRTUAL TABLE posts_fts USING fts5(title, content='posts', content_rowid='id', tokenize='trigram case_sensitive 0')`,
    `INSERT INTO posts_fts(posts_fts) VALUES ('rebuild')`,
    `CREATE TRIGGER posts_fts_insert AFTER INSERT ON posts BEGIN INSERT INTO posts_fts(rowid, title) VALUES (new.id, new.title); END`,
    `CREATE TRIGGER posts_fts_delete AFTER DELETE ON posts BEGIN INSERT INTO posts_fts(posts_fts, rowid, title) VALUES ('delete', old.id, old.title); END`,
    `CREATE TRIGGER posts_fts_update AFTER UPDATE OF title ON posts BEGIN
       INSERT INTO posts_fts(posts_fts, rowid, title) VALUES ('delete', old.id, old.title);
       INSERT INTO posts_fts(rowid, title) VALUES (new.id, new.title); END`,
  ]) {
    await sql.raw(stmt).execute(db);
  }
}

async function postgresUp(db: Kysely<any>): Promise<void> {
  await sql.raw(`
    CREATE FUNCTION posts_counted() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        UPDATE counters SET value = value + 1 WHERE name = 'posts';
        UPDATE counters SET value = value + 1 WHERE name = 'posts:' || NEW.content_rating;
      ELSIF TG_OP = 'DELETE' THEN
        UPDATE counters SET value = value - 1 WHERE name = 'posts';
        UPDATE counters SET value = value - 1 WHERE name = 'posts:' || OLD.content_rating;
      ELSIF NEW.content_rating <> OLD.content_rating THEN
        UPDATE counters SET value = value - 1 WHERE name = 'posts:' || OLD.content_rating;
        UPDATE counters SET value = value + 1 WHERE name = 'posts:' || NEW.content_rating;
      END IF;
      UPDATE counters SET value = value + 1 WHERE name = 'version';
      RETURN NULL;
    END $$`).execute(db);
  await sql.raw(`CREATE TRIGGER posts_counted AFTER INSERT OR UPDATE OF content_rating, title, updated_at OR DELETE ON posts FOR EACH ROW EXECUTE FUNCTION posts_counted()`).execute(db);
  // pg_trgm lives in public so that every schema (one per test run) can use it; without it search still works, unindexed.
  await sql.raw('SAVEPOINT trgm').execute(db);
  try {
    await sql.raw(`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public`).execute(db);
    await sql.raw('RELEASE SAVEPOINT trgm').execute(db);
  } catch {
    // Another run created it at the same moment, or this role may not create extensions.
    await sql.raw('ROLLBACK TO SAVEPOINT trgm').execute(db);
  }
  const has = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_opclass WHERE opcname = 'gin_trgm_ops'`.execute(db);
  if (has.rows[0]?.n) await sql.raw(`CREATE INDEX posts_title_trgm ON posts USING gin (title public.gin_trgm_ops)`).execute(db);
}
