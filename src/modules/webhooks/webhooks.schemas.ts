import { Type, type Static } from 'typebox';
import { Id, StringEnum, Timestamp } from '../../core/schemas.ts';

/** The events a webhook may ask for: the live streams' (modules/events/). */
export const WEBHOOK_EVENTS = ['post.created', 'post.updated', 'post.deleted', 'comment.created', 'comment.deleted', 'like.added', 'like.removed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const NewWebhook = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2000, description: 'Where deliveries are POSTed: http:// or https://' }),
    events: Type.Array(StringEnum(WEBHOOK_EVENTS), { minItems: 1, maxItems: WEBHOOK_EVENTS.length, uniqueItems: true }),
    q: Type.Optional(
      Type.String({
        maxLength: 1000,
        description: 'A search (docs/search.md): the post an event is about must match it, with your own ratings and blacklist, when the event is matched',
      }),
    ),
  },
  { additionalProperties: false },
);
export type NewWebhook = Static<typeof NewWebhook>;

export const WebhookChange = Type.Object(
  { active: Type.Boolean({ description: 'true turns a webhook back on (its run of failures starts again from 0); false turns it off' }) },
  { additionalProperties: false },
);
export type WebhookChange = Static<typeof WebhookChange>;

export const Webhook = Type.Object({
  id: Id,
  url: Type.String(),
  events: Type.Array(StringEnum(WEBHOOK_EVENTS)),
  q: Type.Union([Type.String(), Type.Null()]),
  active: Type.Boolean({ description: 'false once turned off, by you or by a run of failed attempts' }),
  failures: Type.Integer({ description: 'Failed attempts in a row; WEBHOOK_MAX_FAILURES of them turn the webhook off' }),
  disabledAt: Type.Union([Timestamp, Type.Null()]),
  createdAt: Timestamp,
});

export const CreatedWebhook = Type.Intersect([
  Webhook,
  Type.Object({
    secret: Type.String({
      description:
        'The key of the HMAC-SHA256 in each delivery’s X-Webhook-Signature header (`sha256=` and the hex of the body’s HMAC). Shown only in this response',
    }),
  }),
]);

export const WebhookList = Type.Object({ webhooks: Type.Array(Webhook) });

export const WebhookIdParams = Type.Object({ id: Type.String({ maxLength: 20 }) });

export const DeliveryPage = Type.Object(
  {
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  { additionalProperties: false },
);

export const Delivery = Type.Object({
  id: Id,
  eventId: Type.String({ description: 'The event’s id, as the live streams number it' }),
  event: StringEnum(WEBHOOK_EVENTS),
  state: StringEnum(['pending', 'delivered', 'failed'] as const, {
    description: 'pending: not yet answered 2xx (tried again with backoff); failed: no 2xx for 24 hours, or the webhook was turned off',
  }),
  attempts: Type.Integer(),
  lastStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'The HTTP status of the last attempt; null when none answered' }),
  lastError: Type.Union([Type.String(), Type.Null()]),
  nextAttemptAt: Type.Union([Timestamp, Type.Null()], { description: 'null once delivered or failed' }),
  createdAt: Timestamp,
  deliveredAt: Type.Union([Timestamp, Type.Null()]),
});

export const DeliveryList = Type.Object({ deliveries: Type.Array(Delivery), total: Type.Integer(), page: Type.Integer() });
