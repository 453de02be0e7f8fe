import type { FastifyReply } from 'fastify';
import type { TypedApp } from '../../core/typed-app.ts';
import { badRequest } from '../../core/errors.ts';
import { toId } from '../../core/ids.ts';
import { errors } from '../../core/schemas.ts';
import { EventQuery, EVENTS_DESCRIPTION } from './events.schemas.ts';
import type { EventsService, StreamSink, StreamSpec } from './events.service.ts';

/** A client that reads slower than this much of its events waits in memory is dropped; it resumes with Last-Event-ID. */
const MAX_BUFFERED = 1 << 20;

export function eventsRoutes(app: TypedApp, events: EventsService): void {
  // Streams never end by themselves: closing the server ends them, and their clients reconnect elsewhere.
  app.addHook('preClose', async () => events.close());
  // A write answered: its events are in the table now (written in its transaction).
  app.addHook('onResponse', async (req, reply) => {
    if (req.method !== 'GET' && req.method !== 'HEAD' && reply.statusCode < 400) events.written();
  });

  app.get(
    '/api/events',
    {
      schema: {
        summary: 'Live events as server-sent events: new posts matching a query, or one post’s comments, likes and edits',
        description: EVENTS_DESCRIPTION,
        tags: ['events'],
        querystring: EventQuery,
        response: {
          200: { description: 'A stream of events that stays open', content: { 'text/event-stream': { schema: { type: 'string' } } } },
          ...errors(400, 401, 404, 429),
        },
      },
      config: { limit: 'posts' },
    },
    async (req, reply) => {
      const opening = await events.prepare(req.viewer, req.ip, streamSpec(req.query), lastEventIdOf(req.headers['last-event-id'], req.query.lastEventId));
      const sink = sseSink(reply);
      const keepAlive = setInterval(() => reply.raw.write(': keep-alive\n\n'), events.settings.keepAliveSeconds * 1000);
      keepAlive.unref();
      reply.raw.on('close', () => sink.end());
      await opening.start(sink, () => {
        clearInterval(keepAlive);
        reply.raw.end();
      });
    },
  );
}

function streamSpec(query: EventQuery): StreamSpec {
  const { q, post, lastEventId: _, ...list } = query;
  if ((q === undefined) === (post === undefined)) badRequest("give one of 'q' or 'post'", [{ field: 'querystring', message: "one of 'q' or 'post'" }]);
  if (q !== undefined) return { query: { ...list, q: q.trim() } };
  if (Object.keys(list).length > 0) badRequest("the list's filters go with 'q', not 'post'", [{ field: 'post', message: 'not with the list filters' }]);
  const postId = toId(post!);
  if (postId === null) badRequest("field 'post' must be a post id", [{ field: 'post', message: 'must be a post id' }]);
  return { postId: postId! };
}

/** The reply taken over as a server-sent event stream, with the headers the hooks set so far. */
function sseSink(reply: FastifyReply): StreamSink {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    ...(reply.getHeaders() as Record<string, string | number | string[]>),
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  // The client waits this long before reconnecting; the first line also tells it the stream is open.
  res.write('retry: 2000\n\n');
  const sink: StreamSink = {
    send(event, id, data) {
      if (res.writableLength > MAX_BUFFERED) return sink.end();
      res.write(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    end: () => res.end(),
  };
  return sink;
}

/** The event to resume after: the Last-Event-ID header a reconnecting EventSource sends, or `lastEventId` in the query. */
function lastEventIdOf(header: string | string[] | undefined, query: string | undefined): number | null {
  const text = (Array.isArray(header) ? header[0] : header) ?? query;
  if (text === undefined || text === '') return null;
  if (!/^\d{1,15}$/.test(text)) badRequest('Last-Event-ID must be an event id', [{ field: 'Last-Event-ID', message: 'must be an event id' }]);
  return Number(text);
}
