import { sql } from 'kysely';
import type { Db, Tx } from '../../db/engine.ts';
import type { Selectable } from 'kysely';
import type { WebhookDeliveriesTable, WebhooksTable } from '../../db/types.ts';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;

export async function insertWebhook(db: Db, w: Omit<WebhookRow, 'id' | 'failures' | 'disabled_at'>): Promise<WebhookRow> {
  return db.insertInto('webhooks').values(w).returningAll().executeTakeFirstOrThrow();
}

export function webhooksOf(db: Db, userId: number): Promise<WebhookRow[]> {
  return db.selectFrom('webhooks').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}

export function webhookOf(db: Db, userId: number, id: number): Promise<WebhookRow | undefined> {
  return db.selectFrom('webhooks').selectAll().where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
}

export async function deleteWebhook(db: Db, userId: number, id: number): Promise<boolean> {
  const r = await db.deleteFrom('webhooks').where('user_id', '=', userId).where('id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Turns a webhook on (its run of failures from 0) or off. */
export async function setActive(db: Db, id: number, active: boolean, now: number): Promise<void> {
  await db
    .updateTable('webhooks')
    .set(active ? { disabled_at: null, failures: 0 } : { disabled_at: now })
    .where('id', '=', id)
    .execute();
}

/**
 * The webhooks that are on, with what their owners' filters are read from. A cross join makes
 * SQLite read the webhooks first: with no statistics for a new table it took the members as the
 * outer loop, a scan of every member each round.
 */
export function activeWebhooks(db: Db) {
  return db
    .selectFrom('webhooks')
    .crossJoin('users')
    .whereRef('users.id', '=', 'webhooks.user_id')
    .select(['webhooks.id', 'webhooks.events', 'webhooks.q', 'webhooks.after_seq', 'users.id as user_id', 'users.username', 'users.role', 'users.tier'])
    .where('webhooks.disabled_at', 'is', null)
    .orderBy('webhooks.id')
    .execute();
}

/** The posts among `postIds` that the webhook was sent something about. */
export async function postsSentTo(db: Db, webhookId: number, postIds: number[]): Promise<Set<number>> {
  if (postIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('webhook_deliveries')
    .select('post_id')
    .distinct()
    .where('webhook_id', '=', webhookId)
    .where('post_id', 'in', postIds)
    .execute();
  return new Set(rows.map((r) => r.post_id));
}

/** Writes the deliveries a round matched (in the transaction that moved the counter 'webhooks'). */
export async function insertDeliveries(
  trx: Tx,
  deliveries: Omit<DeliveryRow, 'id' | 'state' | 'attempts' | 'last_status' | 'last_error' | 'lease_until' | 'delivered_at'>[],
): Promise<void> {
  for (let at = 0; at < deliveries.length; at += 200)
    await trx
      .insertInto('webhook_deliveries')
      .values(deliveries.slice(at, at + 200))
      .execute();
}

/**
 * Claims up to `limit` deliveries that are due, of webhooks that are on, for `leaseMs`: another
 * instance claiming at the same time gets others (a claimed row's lease is in the future).
 */
export async function claimDue(db: Db, now: number, leaseMs: number, limit: number) {
  const due = db
    .selectFrom('webhook_deliveries')
    .select('webhook_deliveries.id')
    .where('state', '=', 'pending')
    .where('next_at', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .orderBy('next_at')
    .limit(limit);
  const claimed = await db
    .updateTable('webhook_deliveries')
    .set({ lease_until: now + leaseMs })
    .where('id', 'in', due)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .returning(['id', 'webhook_id', 'event_seq', 'event', 'body', 'attempts', 'created_at'])
    .execute();
  if (claimed.length === 0) return [];
  const hooks = await db
    .selectFrom('webhooks')
    .select(['id', 'url', 'secret', 'disabled_at'])
    .where(
      'id',
      'in',
      claimed.map((c) => c.webhook_id),
    )
    .execute();
  const byId = new Map(hooks.map((h) => [h.id, h]));
  return claimed.map((c) => ({ ...c, hook: byId.get(c.webhook_id) }));
}

/** An attempt answered 2xx: the delivery is done and the webhook's run of failures is over. */
export async function delivered(db: Db, id: number, webhookId: number, status: number, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('webhook_deliveries')
      .set({ state: 'delivered', attempts: sql`attempts + 1`, last_status: status, last_error: null, delivered_at: now, lease_until: null })
      .where('id', '=', id)
      .execute();
    await trx.updateTable('webhooks').set({ failures: 0 }).where('id', '=', webhookId).execute();
  });
}

/**
 * An attempt failed: tried again at `nextAt`, or failed for good (nextAt null). The webhook's run
 * of failures grows; at `maxFailures` it is turned off, and what it still had pending fails.
 */
export async function attemptFailed(
  db: Db,
  d: { id: number; webhookId: number; status: number | null; error: string; nextAt: number | null },
  now: number,
  maxFailures: number,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('webhook_deliveries')
      .set({
        attempts: sql`attempts + 1`,
        last_status: d.status,
        last_error: d.error.slice(0, 500),
        lease_until: null,
        ...(d.nextAt === null ? { state: 'failed' as const } : { next_at: d.nextAt }),
      })
      .where('id', '=', d.id)
      .execute();
    const hook = await trx
      .updateTable('webhooks')
      .set({ failures: sql`failures + 1` })
      .where('id', '=', d.webhookId)
      .returning(['failures', 'disabled_at'])
      .executeTakeFirst();
    if (hook && hook.disabled_at === null && hook.failures >= maxFailures) {
      await trx.updateTable('webhooks').set({ disabled_at: now }).where('id', '=', d.webhookId).execute();
      await trx
        .updateTable('webhook_deliveries')
        .set({ state: 'failed', lease_until: null })
        .where('webhook_id', '=', d.webhookId)
        .where('state', '=', 'pending')
        .execute();
    }
  });
}

/** A page of a webhook's deliveries, newest first, and how many it has. */
export async function deliveriesPage(db: Db, webhookId: number, limit: number, offset: number) {
  const [rows, total] = await Promise.all([
    db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    db.selectFrom('webhook_deliveries').select(sql<number>`count(*)`.as('n')).where('webhook_id', '=', webhookId).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}
