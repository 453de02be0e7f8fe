import type { TypedApp } from '../../core/typed-app.ts';
import type { Deps } from '../../core/deps.ts';
import { viewerOf } from '../../core/auth.ts';
import { errors, Message } from '../../core/schemas.ts';
import type { PostsService } from '../posts/posts.service.ts';
import { CreatedWebhook, DeliveryList, DeliveryPage, NewWebhook, WebhookChange, Webhook, WebhookIdParams, WebhookList } from './webhooks.schemas.ts';
import * as webhooks from './webhooks.service.ts';

const DELIVERY_TEXT =
  'Each delivery is a POST of JSON `{ id, event, webhookId, createdAt, data }` (`id`: the event’s id, as `GET /api/events` numbers it; `data`: what the live stream sends for the event) ' +
  'with headers `X-Webhook-Signature: sha256=<hex HMAC-SHA256 of the body, keyed with the secret>`, `X-Webhook-Event`, `X-Webhook-Id` and `X-Webhook-Delivery`. ' +
  'A 2xx answer within WEBHOOK_TIMEOUT_SECONDS (10) delivers it; anything else is tried again after 10 s, 30 s, 90 s... (three times longer each time, at most an hour apart) for 24 hours, then the delivery fails. ' +
  'WEBHOOK_MAX_FAILURES (20) failed attempts in a row turn the webhook off. Targets on loopback, private, link-local and other non-public addresses are refused unless WEBHOOK_ALLOW_PRIVATE is on. ' +
  'A webhook gets the events it names that happen after it is made, about posts its owner sees (their ratings and blacklist) and, with `q`, posts the query matches when the event is matched; `post.deleted` goes to the webhooks that were sent the post.';

export function webhooksRoutes(app: TypedApp, deps: Deps, posts: PostsService): void {
  const common = { tags: ['webhooks'] };
  const member = { auth: 'user' as const, limit: 'write', scope: 'read' as const };

  app.post(
    '/api/webhooks',
    {
      schema: {
        ...common,
        summary: 'Register a webhook: events POSTed to your URL as they happen (session or API key)',
        description: DELIVERY_TEXT,
        body: NewWebhook,
        response: { 201: CreatedWebhook, ...errors(400, 401, 403, 409, 429) },
      },
      config: member,
    },
    async (req, reply) => reply.code(201).send(await webhooks.createWebhook(deps, posts, viewerOf(req), req.body)),
  );

  app.get(
    '/api/webhooks',
    { schema: { ...common, summary: 'Your webhooks (without their secrets)', response: { 200: WebhookList, ...errors(401, 429) } }, config: member },
    async (req) => webhooks.listWebhooks(deps, viewerOf(req)),
  );

  app.patch(
    '/api/webhooks/:id',
    {
      schema: {
        ...common,
        summary: 'Turn a webhook on or off',
        params: WebhookIdParams,
        body: WebhookChange,
        response: { 200: Webhook, ...errors(400, 401, 404, 429) },
      },
      config: member,
    },
    async (req) => webhooks.setWebhookActive(deps, viewerOf(req), req.params.id, req.body.active),
  );

  app.delete(
    '/api/webhooks/:id',
    {
      schema: { ...common, summary: 'Delete a webhook and its deliveries', params: WebhookIdParams, response: { 200: Message, ...errors(401, 404, 429) } },
      config: member,
    },
    async (req) => webhooks.deleteWebhook(deps, viewerOf(req), req.params.id),
  );

  app.get(
    '/api/webhooks/:id/deliveries',
    {
      schema: {
        ...common,
        summary: "A webhook's deliveries, newest first, with their state, attempts and last answer",
        params: WebhookIdParams,
        querystring: DeliveryPage,
        response: { 200: DeliveryList, ...errors(400, 401, 404, 429) },
      },
      config: member,
    },
    async (req) => webhooks.listDeliveries(deps, viewerOf(req), req.params.id, req.query.page ?? 1, req.query.limit ?? 50),
  );
}
