import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';
import { EDITED_COLUMNS, EVENT } from '../schema/events.ts';

/**
 * events: what the live streams (GET /api/events) tell their clients, one row an event, written
 * by triggers in the writer's transaction, so no write path can forget one and a process that was
 * not running when it happened still reads it: a post created (an upload, an import, a publish
 * from the approval queue), edited or deleted; a comment made or deleted; a like given or taken
 * back. `at` is when (epoch ms, the database's clock), by which old rows are dropped; `seq` is the
 * event's id, which a client resumes from (Last-Event-ID).
 *
 * Readers follow `seq`, so it must be drawn in commit order. On PostgreSQL every writer of an
 * event takes the commit-order lock (migration 017) before it draws one: posts' writers hold it
 * already, comments and likes take it from their event to their commit. Writers take a post's row
 * before that lock, so a like is logged from its move of the post's like count (which locks the
 * row), not from its row in likes (whose insert comes first). SQLite has one writer at a time. A
 * post's deletion takes its comments with it: those cascaded deletes log nothing.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const run = (text: string) => sql.raw(text).execute(db);
  if (dialect === 'sqlite') {
    await run(`CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT,
      at INTEGER NOT NULL DEFAULT (CAST(unixepoch('subsec') * 1000 AS INTEGER)),
      kind INTEGER NOT NULL, post_id INTEGER NOT NULL, ref_id INTEGER)`);
    const log = (kind: number | string, post: string, ref = 'NULL') => `INSERT INTO events (kind, post_id, ref_id) VALUES (${kind}, ${post}, ${ref});`;
    const edited = EDITED_COLUMNS.map((c) => `old.${c} IS NOT new.${c}`).join(' OR ');
    const postAlive = (post: string) => `EXISTS (SELECT 1 FROM posts WHERE id = ${post})`;
    await run(`CREATE TRIGGER posts_events_insert AFTER INSERT ON posts BEGIN ${log(EVENT.postCreated, 'new.id')} END`);
    await run(`CREATE TRIGGER posts_events_update AFTER UPDATE ON posts WHEN ${edited} BEGIN ${log(EVENT.postUpdated, 'new.id')} END`);
    await run(`CREATE TRIGGER posts_events_delete AFTER DELETE ON posts BEGIN ${log(EVENT.postDeleted, 'old.id')} END`);
    await run(`CREATE TRIGGER comments_events_insert AFTER INSERT ON comments BEGIN ${log(EVENT.commentCreated, 'new.post_id', 'new.id')} END`);
    await run(
      `CREATE TRIGGER comments_events_delete AFTER DELETE ON comments WHEN ${postAlive('old.post_id')} BEGIN ${log(EVENT.commentDeleted, 'old.post_id', 'old.id')} END`,
    );
    await run(
      `CREATE TRIGGER posts_events_liked AFTER UPDATE OF like_count ON posts WHEN new.like_count <> old.like_count
       BEGIN ${log(`CASE WHEN new.like_count > old.like_count THEN ${EVENT.likeAdded} ELSE ${EVENT.likeRemoved} END`, 'new.id')} END`,
    );
    return;
  }
  await run(`CREATE TABLE events (seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at bigint NOT NULL DEFAULT (extract(epoch from clock_timestamp()) * 1000)::bigint,
    kind smallint NOT NULL, post_id integer NOT NULL, ref_id integer)`);
  const edited = EDITED_COLUMNS.map((c) => `n.${c} IS DISTINCT FROM o.${c}`).join(' OR ');
  const alive = (rows: string) => `FROM ${rows} r WHERE EXISTS (SELECT 1 FROM posts p WHERE p.id = r.post_id)`;
  const statements: [name: string, on: string, transition: string, select: string][] = [
    ['posts_events_insert', 'INSERT ON posts', 'NEW TABLE AS new_rows', `SELECT ${EVENT.postCreated}, id, NULL::integer FROM new_rows ORDER BY id`],
    [
      'posts_events_update',
      'UPDATE ON posts',
      'OLD TABLE AS old_rows NEW TABLE AS new_rows',
      `SELECT ${EVENT.postUpdated}, n.id, NULL::integer FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE ${edited}
       UNION ALL SELECT CASE WHEN n.like_count > o.like_count THEN ${EVENT.likeAdded} ELSE ${EVENT.likeRemoved} END, n.id, NULL::integer
         FROM old_rows o JOIN new_rows n ON n.id = o.id WHERE n.like_count <> o.like_count
       ORDER BY 2, 1`,
    ],
    ['posts_events_delete', 'DELETE ON posts', 'OLD TABLE AS old_rows', `SELECT ${EVENT.postDeleted}, id, NULL::integer FROM old_rows ORDER BY id`],
    ['comments_events_insert', 'INSERT ON comments', 'NEW TABLE AS new_rows', `SELECT ${EVENT.commentCreated}, post_id, id FROM new_rows ORDER BY id`],
    ['comments_events_delete', 'DELETE ON comments', 'OLD TABLE AS old_rows', `SELECT ${EVENT.commentDeleted}, r.post_id, r.id ${alive('old_rows')} ORDER BY r.id`],
  ];
  for (const [name, on, transition, select] of statements) {
    // The lock only once there is an event to number: an update that edited nothing takes none.
    await run(`CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (${select}) THEN
          PERFORM commit_order_lock();
          INSERT INTO events (kind, post_id, ref_id) ${select};
        END IF;
        RETURN NULL;
      END $$`);
    await run(`CREATE TRIGGER ${name} AFTER ${on} REFERENCING ${transition} FOR EACH STATEMENT EXECUTE FUNCTION ${name}()`);
  }
}
