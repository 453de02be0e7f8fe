import type { Deps, Viewer } from '../../core/deps.ts';
import { EVENT, type EventKind } from '../../db/schema/events.ts';
import type { ListFilters } from '../../search/filters.ts';
import { commentJson } from '../comments/comments.service.ts';
import { commentById } from '../comments/comments.repo.ts';
import type { PostsService } from '../posts/posts.service.ts';
import type { ListQuery } from '../../search/list-query.ts';
import { listItems } from '../posts/posts.repo.ts';
import { listFilters } from '../preferences/preferences.service.ts';
import { AppError } from '../../core/errors.ts';
import { semaphore } from '../../core/semaphore.ts';
import { EVENTS_BATCH, EventHub, type Subscriber } from './event-hub.ts';
import { dropEventsBefore, eventsAfter, likeCount, type StoredEvent } from './events.repo.ts';
import { StreamCounts } from './stream-counts.ts';
import { createWakeUps } from './wake-ups.ts';

/** Where a stream's events go: the route writes them as server-sent events. */
export interface StreamSink {
  send(event: string, id: number, data: unknown): void;
  /** The stream is over (its post was deleted, or it fell behind): the client reconnects with Last-Event-ID. */
  end(): void;
}

/** What a query stream follows: `q` and, if given, the list's other filters (GET /api/posts's). */
export type StreamQuery = Pick<ListQuery, 'q' | 'tag' | 'search' | 'uploader' | 'contentRating' | 'minLikes' | 'dateFrom' | 'dateTo'>;

export type StreamSpec = { query: StreamQuery } | { postId: number };

export interface EventsContext {
  deps: Deps;
  posts: PostsService;
  hub: EventHub;
  log: (err: unknown) => void;
}

/** Each kind of event by the name clients see. */
export const EVENT_NAMES: Record<EventKind, string> = {
  [EVENT.postCreated]: 'post.created',
  [EVENT.postUpdated]: 'post.updated',
  [EVENT.postDeleted]: 'post.deleted',
  [EVENT.commentCreated]: 'comment.created',
  [EVENT.commentDeleted]: 'comment.deleted',
  [EVENT.likeAdded]: 'like.added',
  [EVENT.likeRemoved]: 'like.removed',
};

/**
 * What a comment's or a like's event says: the comment as the comment list gives it, `{ id,
 * postId }` for a deleted one, `{ postId, likes }` (the count now) for a like. Null when there is
 * nothing left to say (the comment or the post is gone since).
 */
export async function activityData(deps: Deps, e: StoredEvent): Promise<unknown> {
  const postId = String(e.postId);
  switch (e.kind) {
    case EVENT.commentCreated: {
      const row = await commentById(deps.db, e.refId!).catch(() => null);
      return row ? commentJson(deps.config, row) : null;
    }
    case EVENT.commentDeleted:
      return { id: String(e.refId), postId };
    case EVENT.likeAdded:
    case EVENT.likeRemoved: {
      const likes = await likeCount(deps.db, e.postId);
      return likes === null ? null : { postId, likes };
    }
    default:
      return null;
  }
}

/** How often old events are dropped (every process does; the statement finds nothing to do after the first). */
const PRUNE_EVERY_MS = 5 * 60_000;

/**
 * The live streams of one app: the reader of the events table they share, the open streams by
 * member and address, and the dropping of old events. buildApp makes one (src/services.ts).
 */
export function createEventsService(deps: Deps, posts: PostsService, log: (err: unknown, what: string) => void) {
  const settings = deps.config.events;
  const wakeUps = createWakeUps(deps, log);
  const hub = new EventHub(deps.db, settings.pollMs, (err) => log(err, 'events: reading the events failed'), wakeUps.hear);
  const ctx: EventsContext = { deps, posts, hub, log: (err) => log(err, 'events: a stream failed') };
  const counts = new StreamCounts(settings.streamsPerUser, settings.streamsPerIp);
  const open = new Set<() => void>();
  let prune: NodeJS.Timeout | null = null;
  return {
    settings,
    /**
     * Checks a stream's request (its query or post, and the viewer's and address's open streams)
     * and holds its place; `start` then sends its events into the sink until it ends.
     */
    async prepare(viewer: Viewer | null, ip: string, spec: StreamSpec, lastEventId: number | null) {
      const filters = 'query' in spec ? await streamFilters(ctx, viewer, spec.query) : await checkPost(ctx, viewer, spec.postId);
      const release = counts.take(viewer?.id ?? null, ip);
      if (!release) throw new AppError(429, 'Too many open event streams: close one first', { retryAfter: settings.keepAliveSeconds });
      if (!prune) {
        prune = setInterval(() => {
          dropEventsBefore(deps.db, Date.now() - settings.keepMinutes * 60_000).catch((err) => log(err, 'events: dropping old events failed'));
        }, PRUNE_EVERY_MS);
        prune.unref();
      }
      return {
        start: async (sink: StreamSink, onEnd: () => void): Promise<void> => {
          const stream = new EventStream(ctx, viewer, spec, filters, sink, lastEventId);
          let ended = false;
          const end = () => {
            if (ended) return;
            ended = true;
            open.delete(end);
            release();
            stream.close();
            onEnd();
          };
          open.add(end);
          sink.end = end;
          await stream.start().catch(end);
        },
      };
    },
    /** Streams open on this app now (GET /metrics). */
    openStreams: (): number => open.size,
    /** Says that this process wrote: its own reader and every other instance's read now (after a write request). */
    written(): void {
      hub.wake();
      wakeUps.say();
    },
    /** Ends every open stream (the server is closing: their clients reconnect elsewhere). */
    async close(): Promise<void> {
      if (prune) clearInterval(prune);
      prune = null;
      for (const end of [...open]) end();
      await wakeUps.close();
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;

/** Posts a stream sent and remembers, for their edits and deletes. */
const SENT_KEPT = 10_000;

/** Ids closer than this go to the search as one range `id:a..b`, which then holds at most a page of posts. */
const RANGE = 100;

/**
 * What one batch of new posts matched, by the stream's query and filters: streams whose query
 * and filters are the same ask the search once a batch (the hub hands every subscriber the same
 * batch object).
 */
const shared = new WeakMap<StoredEvent[], Map<string, Promise<Set<number>>>>();
type ListItem = Awaited<ReturnType<typeof listItems>>[number];
/** A batch's new posts as list items, read once for every stream that sends any of them. */
const sharedItems = new WeakMap<StoredEvent[], Promise<Map<number, ListItem>>>();

/**
 * Searches the streams run at once. A new post wakes every stream together: a thousand searches in
 * flight at once kept their half-done work alive through the young generation's collections, which
 * then copied and promoted it (the collector became the largest user of the CPU); a few at a time,
 * each search's garbage dies young. Four: one at a time kept the last streams waiting for the
 * others, sixteen brought most of the collector's work back (docs/benchmarks.md, Live events).
 */
const streamSearches = semaphore(4);

/** matchingPosts, waiting its turn among the streams' searches. */
async function streamMatching(...args: Parameters<typeof matchingPosts>): Promise<Set<number>> {
  const release = await streamSearches.acquire();
  try {
    return await matchingPosts(...args);
  } finally {
    release();
  }
}

/** The posts among `ids` that the list with these filters and query holds (the viewer's visibility rules are the filters'). */
export async function matchingPosts(posts: PostsService, filters: ListFilters | undefined, query: StreamQuery, ids: number[]): Promise<Set<number>> {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  const found = new Set<number>();
  const q = query.q?.trim() ?? '';
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] - sorted[i] < RANGE) j++;
    const range = i === j ? `id:${sorted[i]}` : `id:${sorted[i]}..${sorted[j]}`;
    const page = await posts.matching(filters, { ...query, q: q ? `(${q}) ${range}` : range, limit: RANGE });
    for (const id of page) found.add(id);
    i = j + 1;
  }
  const wanted = new Set(sorted);
  return new Set([...found].filter((id) => wanted.has(id)));
}

/**
 * Checks a query before anything follows it (a stream, a webhook, a saved search): one the list
 * refuses is a 400 here too, naming the field and the character, not an error at every new post.
 */
export async function checkQuery(posts: PostsService, query: StreamQuery): Promise<void> {
  await matchingPosts(posts, undefined, query, [0]);
}

/** A query stream's filters: the viewer's (read once, when it opens), after its query is checked. */
async function streamFilters(ctx: EventsContext, viewer: Viewer | null, query: StreamQuery): Promise<ListFilters | undefined> {
  await checkQuery(ctx.posts, query);
  return listFilters(ctx.deps, viewer);
}

/** Checks that the viewer may see the post whose stream opens (404 as GET /api/posts/<id> would); such a stream has no list filters. */
export async function checkPost(ctx: EventsContext, viewer: Viewer | null, postId: number): Promise<undefined> {
  await ctx.posts.get(String(postId), viewer, {});
  return undefined;
}

/**
 * A stream's reader: takes the hub's batches (and, when resuming, the events since the client's
 * last one, read from the table first) and sends what the stream's client may see, in order.
 */
export class EventStream implements Subscriber {
  private cursor: number;
  /** Batches the hub handed over while the stream was still reading the events before them. */
  private held: StoredEvent[][] | null = [];
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly sent = new Set<number>();
  /** Events up to here were written before the stream opened: a resume, where what it sent before is not known. */
  private replayUntil = 0;

  constructor(
    private readonly ctx: EventsContext,
    private readonly viewer: Viewer | null,
    private readonly spec: StreamSpec,
    private readonly filters: ListFilters | undefined,
    private readonly sink: StreamSink,
    lastEventId: number | null,
  ) {
    this.cursor = lastEventId ?? -1;
  }

  /** Joins the hub, then sends the events since the client's last one (a resume) before any new one. */
  async start(): Promise<void> {
    const live = await this.ctx.hub.subscribe(this);
    if (this.cursor < 0) this.cursor = live;
    this.replayUntil = live;
    this.queue = this.queue.then(async () => {
      while (!this.closed && this.cursor < live) {
        const batch = await eventsAfter(this.ctx.deps.db, this.cursor, EVENTS_BATCH, 'postId' in this.spec ? this.spec.postId : undefined);
        const upTo = batch.filter((e) => e.seq <= live);
        if (upTo.length) await this.handle(upTo);
        if (batch.length < EVENTS_BATCH || upTo.length < batch.length) break;
      }
      this.cursor = Math.max(this.cursor, live);
      const held = this.held ?? [];
      this.held = null;
      for (const b of held) await this.handle(b);
    });
    this.queue.catch((err) => this.fail(err));
    await this.queue;
  }

  deliver(batch: StoredEvent[]): void {
    if (this.closed) return;
    if (this.held) {
      this.held.push(batch);
      return;
    }
    this.queue = this.queue.then(() => this.handle(batch)).catch((err) => this.fail(err));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ctx.hub.unsubscribe(this);
  }

  private fail(err: unknown): void {
    if (this.closed) return;
    this.ctx.log(err);
    // The client resumes from the last event it has: nothing is lost by ending here.
    this.close();
    this.sink.end();
  }

  private async handle(batch: StoredEvent[]): Promise<void> {
    const events = batch.filter((e) => e.seq > this.cursor);
    if (this.closed || events.length === 0) return;
    if ('postId' in this.spec) await this.postEvents(this.spec.postId, events);
    else await this.queryEvents(this.spec.query, events, batch);
    this.cursor = events[events.length - 1].seq;
  }

  private async queryEvents(q: StreamQuery, events: StoredEvent[], batch: StoredEvent[]): Promise<void> {
    const created = events.filter((e) => e.kind === EVENT.postCreated).map((e) => e.postId);
    const updated = events.filter((e) => e.kind === EVENT.postUpdated).map((e) => e.postId);
    const replayed = (e: StoredEvent) => e.seq <= this.replayUntil;
    const matched = created.length ? await this.matched(q, created, batch) : new Set<number>();
    // An edit goes to a stream that sent the post; after a resume, to one whose query the post matches now.
    const sentEdits = updated.filter((id) => this.sent.has(id));
    const resumedEdits = events.filter((e) => e.kind === EVENT.postUpdated && replayed(e) && !this.sent.has(e.postId)).map((e) => e.postId);
    const visible = sentEdits.length ? await streamMatching(this.ctx.posts, this.filters, {}, sentEdits) : new Set<number>();
    const nowMatching = resumedEdits.length ? await streamMatching(this.ctx.posts, this.filters, q, resumedEdits) : new Set<number>();
    const fresh = matched.size ? await this.createdItems(batch) : new Map<number, ListItem>();
    const edited = [...new Set([...visible, ...nowMatching])].filter((id) => !fresh.has(id));
    const items = new Map(fresh);
    for (const p of edited.length ? await listItems(this.ctx.deps.db, edited, this.ctx.deps.config) : []) items.set(Number(p.id), p);
    for (const e of events) {
      if (this.closed) return;
      const item = items.get(e.postId);
      if (e.kind === EVENT.postCreated && item && matched.has(e.postId)) {
        this.remember(e.postId);
        this.sink.send('post.created', e.seq, item);
      } else if (e.kind === EVENT.postUpdated && item && (visible.has(e.postId) || nowMatching.has(e.postId))) {
        this.sink.send('post.updated', e.seq, item);
      } else if (e.kind === EVENT.postDeleted && (this.sent.has(e.postId) || replayed(e))) {
        this.sent.delete(e.postId);
        this.sink.send('post.deleted', e.seq, { id: String(e.postId) });
      }
    }
  }

  /** The new posts this stream's query and filters match, asked once a batch for all streams alike. */
  private matched(q: StreamQuery, ids: number[], batch: StoredEvent[]): Promise<Set<number>> {
    const key = JSON.stringify([q, this.filters ?? null]);
    let byKey = shared.get(batch);
    if (!byKey) shared.set(batch, (byKey = new Map()));
    let found = byKey.get(key);
    if (!found) {
      // The whole batch's new posts, so that streams resuming at different points share the answer.
      const all = batch.filter((e) => e.kind === EVENT.postCreated).map((e) => e.postId);
      found = streamMatching(this.ctx.posts, this.filters, q, all);
      byKey.set(key, found);
    }
    return found.then((set) => new Set(ids.filter((id) => set.has(id))));
  }

  /** The batch's new posts as the list shows them, read once a batch for all streams. */
  private createdItems(batch: StoredEvent[]): Promise<Map<number, ListItem>> {
    let found = sharedItems.get(batch);
    if (!found) {
      const ids = [...new Set(batch.filter((e) => e.kind === EVENT.postCreated).map((e) => e.postId))];
      found = listItems(this.ctx.deps.db, ids, this.ctx.deps.config).then((rows) => new Map(rows.map((p) => [Number(p.id), p])));
      sharedItems.set(batch, found);
    }
    return found;
  }

  private remember(id: number): void {
    this.sent.add(id);
    if (this.sent.size > SENT_KEPT) this.sent.delete(this.sent.values().next().value!);
  }

  private async postEvents(postId: number, events: StoredEvent[]): Promise<void> {
    for (const e of events) {
      if (this.closed) return;
      if (e.postId !== postId) continue;
      switch (e.kind) {
        case EVENT.commentCreated:
        case EVENT.commentDeleted:
        case EVENT.likeAdded:
        case EVENT.likeRemoved: {
          const data = await activityData(this.ctx.deps, e);
          if (data !== null) this.sink.send(EVENT_NAMES[e.kind], e.seq, data);
          break;
        }
        case EVENT.postUpdated: {
          const post = await this.ctx.posts.get(String(postId), this.viewer, {}).catch(() => null);
          if (post) this.sink.send('post.updated', e.seq, Buffer.isBuffer(post) ? JSON.parse(post.toString()) : post);
          break;
        }
        case EVENT.postDeleted:
          this.sink.send('post.deleted', e.seq, { id: String(postId) });
          this.close();
          this.sink.end();
          return;
      }
    }
  }
}
