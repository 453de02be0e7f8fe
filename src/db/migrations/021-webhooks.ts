import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * webhooks: a member's registered targets (modules/webhooks/): the events they want (`events`, a
 * comma list of event names), an optional query new posts must match (`q`), the secret deliveries
 * are signed with, the newest event when it was made (`after_seq`: it gets only later ones), and
 * whether it is still on: `failures` counts failed attempts in a row, and a
 * run of them turns it off (`disabled_at`).
 *
 * webhook_deliveries: one row an event a webhook is to get, written once (the pair webhook and
 * event is unique, so two instances that match the same events write each delivery once). `body`
 * is the JSON sent, fixed when the event is matched; `next_at` is when the next attempt is due,
 * `lease_until` holds it for the instance attempting it. The counter 'webhooks' is the last event
 * matched against the webhooks.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  const id = (c: any) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity());
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'integer', id)
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('url', 'varchar(2000)', (c) => c.notNull())
    .addColumn('events', 'varchar(200)', (c) => c.notNull())
    .addColumn('q', 'varchar(1000)')
    .addColumn('secret', 'varchar(100)', (c) => c.notNull())
    .addColumn('after_seq', 'bigint', (c) => c.notNull())
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('disabled_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_user').on('webhooks').columns(['user_id', 'id']).execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'integer', id)
    .addColumn('webhook_id', 'integer', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event_seq', 'bigint', (c) => c.notNull())
    .addColumn('event', 'varchar(32)', (c) => c.notNull())
    .addColumn('post_id', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('state', 'varchar(10)', (c) => c.notNull().defaultTo('pending').check(sql`state IN ('pending', 'delivered', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_status', 'integer')
    .addColumn('last_error', 'varchar(500)')
    .addColumn('next_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_until', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('delivered_at', 'bigint')
    .addUniqueConstraint('webhook_deliveries_event', ['webhook_id', 'event_seq'])
    .execute();
  await db.schema.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['state', 'next_at']).execute();
  await db.schema.createIndex('webhook_deliveries_list').on('webhook_deliveries').columns(['webhook_id', 'id']).execute();
  // A post's deletion goes to the webhooks that were sent the post.
  await db.schema.createIndex('webhook_deliveries_post').on('webhook_deliveries').columns(['webhook_id', 'post_id']).execute();
  await sql`INSERT INTO counters (name, value) VALUES ('webhooks', 0)`.execute(db);
}
