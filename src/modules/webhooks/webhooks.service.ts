import { randomBytes } from 'node:crypto';
import type { Deps, Viewer } from '../../core/deps.ts';
import { asViewer } from '../../core/auth.ts';
import { badRequest, conflict, notFound } from '../../core/errors.ts';
import { toId } from '../../core/ids.ts';
import { iso, isoOrNull } from '../../core/schemas.ts';
import { EVENT } from '../../db/schema/events.ts';
import { activityData, checkQuery, EVENT_NAMES, matchingPosts } from '../events/events.service.ts';
import { newestEvent, type StoredEvent } from '../events/events.repo.ts';
import type { PostsService } from '../posts/posts.service.ts';
import { listItems } from '../posts/posts.repo.ts';
import { listFilters } from '../preferences/preferences.service.ts';
import { everyRound, followRound } from '../events/rounds.ts';
import { send } from './delivery.ts';
import { refusedTarget } from './target-address.ts';
import * as repo from './webhooks.repo.ts';
import type { NewWebhook, WebhookEvent } from './webhooks.schemas.ts';

/** Webhooks a member may hold. */
export const MAX_WEBHOOKS = 20;

/** Deliveries are tried again for this long after their event was matched, then fail. */
const RETRY_FOR_MS = 24 * 3600_000;

/** The wait before attempt n + 1 after n failed: 10 s, then three times longer each time, at most an hour. */
export const backoffMs = (failedAttempts: number) => Math.min(10_000 * 3 ** (failedAttempts - 1), 3600_000);

/** Deliveries one app sends at once, and how long it holds them. */
const SENDS_A_ROUND = 10;
const LEASE_MS = 120_000;

const webhookJson = (w: repo.WebhookRow) => ({
  id: String(w.id),
  url: w.url,
  events: w.events.split(',') as WebhookEvent[],
  q: w.q,
  active: w.disabled_at === null,
  failures: w.failures,
  disabledAt: isoOrNull(w.disabled_at),
  createdAt: iso(w.created_at),
});

export async function createWebhook(deps: Deps, posts: PostsService, viewer: Viewer, body: NewWebhook) {
  const refused = await refusedTarget(body.url, deps.config.webhooks.allowPrivate);
  if (refused) badRequest(`field 'url' ${refused}`, [{ field: 'url', message: refused }]);
  const q = body.q?.trim() || null;
  if (q !== null) await checkQuery(posts, { q });
  if ((await repo.webhooksOf(deps.db, viewer.id)).length >= MAX_WEBHOOKS) conflict(`A member holds at most ${MAX_WEBHOOKS} webhooks: delete one first`);
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  const row = await repo.insertWebhook(deps.db, {
    user_id: viewer.id,
    url: body.url,
    events: body.events.join(','),
    q,
    secret,
    after_seq: await newestEvent(deps.db),
    created_at: deps.clock.now(),
  });
  return { ...webhookJson(row), secret };
}

export async function listWebhooks(deps: Deps, viewer: Viewer) {
  return { webhooks: (await repo.webhooksOf(deps.db, viewer.id)).map(webhookJson) };
}

async function ownWebhook(deps: Deps, viewer: Viewer, rawId: string): Promise<repo.WebhookRow> {
  const id = toId(rawId);
  const row = id === null ? undefined : await repo.webhookOf(deps.db, viewer.id, id);
  return row ?? notFound('Webhook', rawId);
}

export async function setWebhookActive(deps: Deps, viewer: Viewer, rawId: string, active: boolean) {
  const row = await ownWebhook(deps, viewer, rawId);
  await repo.setActive(deps.db, row.id, active, deps.clock.now());
  return webhookJson((await repo.webhookOf(deps.db, viewer.id, row.id))!);
}

export async function deleteWebhook(deps: Deps, viewer: Viewer, rawId: string) {
  const row = await ownWebhook(deps, viewer, rawId);
  await repo.deleteWebhook(deps.db, viewer.id, row.id);
  return { message: 'Webhook deleted' };
}

export async function listDeliveries(deps: Deps, viewer: Viewer, rawId: string, page: number, limit: number) {
  const row = await ownWebhook(deps, viewer, rawId);
  const { rows, total } = await repo.deliveriesPage(deps.db, row.id, limit, (page - 1) * limit);
  return {
    deliveries: rows.map((d) => ({
      id: String(d.id),
      eventId: String(d.event_seq),
      event: d.event as WebhookEvent,
      state: d.state,
      attempts: d.attempts,
      lastStatus: d.last_status,
      lastError: d.last_error,
      nextAttemptAt: d.state === 'pending' ? iso(d.next_at) : null,
      createdAt: iso(d.created_at),
      deliveredAt: isoOrNull(d.delivered_at),
    })),
    total,
    page,
  };
}

/**
 * What an event a webhook gets says, as the live streams say it: a post as the list gives it,
 * `{ id }` for a deleted one, a comment or a like as activityData gives them. Null: nothing left.
 */
async function eventBodies(deps: Deps, events: StoredEvent[]): Promise<Map<number, unknown>> {
  const posts = events.filter((e) => e.kind === EVENT.postCreated || e.kind === EVENT.postUpdated).map((e) => e.postId);
  const items = new Map((posts.length ? await listItems(deps.db, [...new Set(posts)], deps.config) : []).map((p) => [Number(p.id), p]));
  const out = new Map<number, unknown>();
  for (const e of events) {
    if (e.kind === EVENT.postCreated || e.kind === EVENT.postUpdated) out.set(e.seq, items.get(e.postId) ?? null);
    else if (e.kind === EVENT.postDeleted) out.set(e.seq, { id: String(e.postId) });
    else out.set(e.seq, await activityData(deps, e));
  }
  return out;
}

/**
 * Matches the events after the counter 'webhooks' against the webhooks that are on, writes a
 * delivery for each (webhook, event) it matches and moves the counter, in one transaction; when
 * another instance did the same events first, its work stands and this round's is dropped.
 *
 * A webhook gets the events it asked for that came after it was made, about posts its owner sees
 * (their ratings and blacklist) and its query matches when the round runs; a post's deletion goes
 * to the webhooks that were sent something about the post.
 */
export async function matchRound(deps: Deps, posts: PostsService): Promise<number> {
  const hooks = await repo.activeWebhooks(deps.db);
  const after = hooks.length ? Math.min(...hooks.map((h) => Number(h.after_seq))) : null;
  return followRound(deps.db, 'webhooks', after, (batch) => deliveriesOf(deps, posts, hooks, batch), repo.insertDeliveries);
}

/** The deliveries a batch of events makes for the webhooks that are on. */
async function deliveriesOf(deps: Deps, posts: PostsService, hooks: Awaited<ReturnType<typeof repo.activeWebhooks>>, batch: StoredEvent[]) {
  const now = deps.clock.now();
  const chosen: { hook: number; e: StoredEvent }[] = [];
  for (const h of hooks) {
    const wanted = new Set(h.events.split(','));
    const events = batch.filter((e) => e.seq > h.after_seq && wanted.has(EVENT_NAMES[e.kind]));
    if (events.length === 0) continue;
    const owner = asViewer({ ...h, id: h.user_id });
    const about = [...new Set(events.filter((e) => e.kind !== EVENT.postDeleted).map((e) => e.postId))];
    const seen = about.length ? await matchingPosts(posts, await listFilters(deps, owner), { q: h.q ?? '' }, about) : new Set<number>();
    const deleted = events.filter((e) => e.kind === EVENT.postDeleted).map((e) => e.postId);
    const sentBefore = await repo.postsSentTo(deps.db, h.id, deleted);
    for (const e of events) {
      const match = e.kind === EVENT.postDeleted ? sentBefore.has(e.postId) || seen.has(e.postId) : seen.has(e.postId);
      if (!match) continue;
      seen.add(e.postId);
      chosen.push({ hook: h.id, e });
    }
  }
  const bodies = await eventBodies(deps, [...new Map(chosen.map((c) => [c.e.seq, c.e])).values()]);
  return chosen
    .filter((c) => bodies.get(c.e.seq) !== null)
    .map((c) => ({
      webhook_id: c.hook,
      event_seq: c.e.seq,
      event: EVENT_NAMES[c.e.kind],
      post_id: c.e.postId,
      body: JSON.stringify({ id: String(c.e.seq), event: EVENT_NAMES[c.e.kind], webhookId: String(c.hook), createdAt: iso(now), data: bodies.get(c.e.seq) }),
      next_at: now,
      created_at: now,
    }));
}

/** Sends the deliveries that are due (up to SENDS_A_ROUND at once); a failure is tried again later, with backoff, for 24 hours. */
export async function sendRound(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const due = await repo.claimDue(deps.db, now, LEASE_MS, SENDS_A_ROUND);
  const { allowPrivate, timeoutSeconds, maxFailures } = deps.config.webhooks;
  await Promise.all(
    due.map(async (d) => {
      if (!d.hook || d.hook.disabled_at !== null) {
        await repo.attemptFailed(deps.db, { id: d.id, webhookId: d.webhook_id, status: null, error: 'the webhook is off', nextAt: null }, now, maxFailures);
        return;
      }
      const headers = { 'x-webhook-id': String(d.webhook_id), 'x-webhook-event': d.event, 'x-webhook-delivery': String(d.id) };
      const attempt = await send(d.hook, d.body, headers, { allowPrivate, timeoutMs: timeoutSeconds * 1000 });
      const at = deps.clock.now();
      if (attempt.status !== null && attempt.status >= 200 && attempt.status < 300) return repo.delivered(deps.db, d.id, d.webhook_id, attempt.status, at);
      const next = at + backoffMs(d.attempts + 1);
      await repo.attemptFailed(
        deps.db,
        {
          id: d.id,
          webhookId: d.webhook_id,
          status: attempt.status,
          error: attempt.error ?? 'failed',
          nextAt: next <= d.created_at + RETRY_FOR_MS ? next : null,
        },
        at,
        maxFailures,
      );
    }),
  );
  return due.length;
}

/**
 * The webhooks of one app: every second it matches new events and sends what is due, as every
 * other app does (the database keeps them from doing the same work twice). buildApp makes one
 * (src/services.ts); it runs between the app's start and its close, where jobs run.
 */
export function createWebhooksService(deps: Deps, posts: PostsService, log: (err: unknown, what: string) => void) {
  return everyRound(
    async () => {
      await matchRound(deps, posts);
      while ((await sendRound(deps)) === SENDS_A_ROUND) {}
    },
    log,
    'webhooks',
  );
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
