import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import fastifyStatic from '@fastify/static';
import fastifyCookie from '@fastify/cookie';
import fastifyMultipart from '@fastify/multipart';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { systemClock, type Clock, type Deps } from './core/deps.ts';
import { serverDatabase } from './core/deps-open.ts';
import { errorBody, installErrorHandler } from './core/errors.ts';
import { loggerOptions, OneLineARequest } from './core/log-format.ts';
import { clientErrorHandler, frameworkErrors, installHttpEdge } from './core/http-edge.ts';
import { RouteIndex } from './core/route-index.ts';
import type { TypedApp } from './core/typed-app.ts';
import { recoverInterrupted } from './modules/uploads/recover.ts';
import { backgroundMd5Fill, type Md5FillReport } from './modules/uploads/md5-fill.ts';
import { createServices } from './services.ts';
import type { EngineCore } from './search/engine.ts';
import type { NearestPosts } from './modules/similar/similar.service.ts';
import { registerOpenApi } from './core/openapi.ts';
import { closeEmptyQueries, validatorCompiler } from './core/validation.ts';
import { sharedSerializers } from './core/serializers.ts';
import { installAuth } from './core/auth.ts';
import { installRateLimits } from './core/rate-limit/index.ts';
import { MemoryStore, type LimitStore } from './core/rate-limit/windows.ts';
import { LocalMediaStore } from './storage/local.ts';
import { openMediaStore } from './storage/open.ts';
import { serveStoredMedia } from './modules/media/serve-media.ts';
import { metaRoutes } from './modules/meta/meta.routes.ts';
import { postsRoutes } from './modules/posts/posts.routes.ts';
import { tagsRoutes } from './modules/tags/tags.routes.ts';
import { tagDetailRoutes } from './modules/tags/tag-detail.routes.ts';
import { tagAliasesRoutes } from './modules/tags/tag-aliases.routes.ts';
import { tagImplicationsRoutes } from './modules/tags/tag-implications.routes.ts';
import { poolsRoutes } from './modules/pools/pools.routes.ts';
import { usersRoutes } from './modules/users/users.routes.ts';
import { statsRoutes } from './modules/stats/stats.routes.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { apiKeysRoutes } from './modules/api-keys/api-keys.routes.ts';
import { adminRoutes } from './modules/admin/admin.routes.ts';
import { invitesRoutes } from './modules/invites/invites.routes.ts';
import { moderationRoutes } from './modules/moderation/moderation.routes.ts';
import { approvalRoutes } from './modules/approval/approval.routes.ts';
import { usersMeRoutes } from './modules/users/users.me.routes.ts';
import { preferencesRoutes } from './modules/preferences/preferences.routes.ts';
import { uploadsRoutes } from './modules/uploads/uploads.routes.ts';
import { commentsRoutes } from './modules/comments/comments.routes.ts';
import { reactionsRoutes } from './modules/reactions/reactions.routes.ts';
import { similarRoutes } from './modules/similar/similar.routes.ts';
import { jobsRoutes } from './modules/jobs/jobs.routes.ts';
import { startJobRunner, type JobRunner, type JobRunnerOptions } from './jobs/runner.ts';
import { registerBuiltInJobKinds } from './job-kinds.ts';
import { danbooruRoutes } from './modules/danbooru/danbooru.routes.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { eventsRoutes } from './modules/events/events.routes.ts';
import { webhooksRoutes } from './modules/webhooks/webhooks.routes.ts';
import { savedSearchesRoutes } from './modules/saved-searches/saved-searches.routes.ts';
import { databaseCheck, mediaCheck, readinessChecks, type Check, type ReadinessChecks } from './modules/health/health.service.ts';
import type { AppMetrics } from './modules/metrics/metrics.service.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The built front-end (`web/`, built by `npm run build`, which npm install runs, or `npm run web:build`). */
const WEB_DIST = path.join(ROOT, 'web', 'dist');
/** The pages' policy; media from MEDIA_PUBLIC_URL's origin when they live there. */
function pageCsp(config: Config): string {
  const media = config.mediaPublicUrl ? ` ${new URL(config.mediaPublicUrl).origin}` : '';
  return `default-src 'self'; img-src 'self' data: blob:${media}; media-src 'self' blob:${media}; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'`;
}

/** A browser asking for a page of the front-end: deep links such as /posts/123 get index.html. */
function wantsPage(method: string, url: string, accept: string | undefined): boolean {
  if (method !== 'GET' && method !== 'HEAD') return false;
  if (/^\/(api|media|static|assets)(\/|$)/.test(url)) return false;
  return (accept ?? '').includes('text/html');
}

export interface AppOptions {
  /** An open database to use (tests share one); otherwise one is opened from config and closed with the app. */
  database?: Database;
  clock?: Clock;
  /** Rate-limit counters to use (tests share one between two apps); default: Redis with REDIS_URL, else memory. */
  limitStore?: LimitStore;
  /** Where logs go (default stdout); tests read them. */
  logStream?: NodeJS.WritableStream;
  /**
   * Whether this app fills the md5 of posts made before it was stored, in the background after
   * start-up (default yes). server.ts turns it off in workers: the first process does it for all.
   */
  fillMd5?: boolean;
  /**
   * The background job runner (modules/jobs/runner.ts): on unless `run` is false, started when the
   * app is ready and stopped when it closes. Tests shorten its poll and lease.
   */
  jobs?: JobRunnerOptions & { run?: boolean };
  /** The search engine's core, when another thread keeps it (server.ts, WORKERS > 1); default: one of the app's own. */
  searchCore?: EngineCore;
  /** The similar-image index, likewise. */
  similar?: NearestPosts;
  /**
   * With WORKERS > 1 and METRICS on: the main thread adds up every thread's metrics (this app's
   * registry, which it asks for, among them) and counts the job queue once; GET /metrics answers
   * with what `scrape` gives (server.ts, modules/metrics/thread-metrics.ts).
   */
  threadMetrics?: { scrape(): Promise<string> };
}

export type App = TypedApp & {
  deps: Deps;
  /**
   * Loads what the first requests would otherwise wait for, by calling the services directly: no
   * client's rate limit is charged and nothing is logged as a request.
   */
  warmUp(): Promise<void>;
  /** The start-up md5 fill (modules/uploads/md5-fill.ts): its report once finished, null if it failed or was not run. */
  md5Fill: Promise<Md5FillReport | null>;
  /** What /readyz checks; `drain()` turns it 503 while the server still serves (SIGTERM: server.ts). */
  readiness: ReadinessChecks;
  /** What GET /metrics counts of this app (METRICS on), else null. */
  metrics: AppMetrics | null;
};

function trustProxy(value: string): any {
  if (value === '') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/** Builds the whole server. The same function serves production (server.ts) and every test. */
export async function buildApp(config: Config, opts: AppOptions = {}): Promise<App> {
  registerBuiltInJobKinds();
  const database = opts.database ?? (await openDatabase(serverDatabase(config)));
  const clock = opts.clock ?? systemClock;
  // Loaded only when on: a board without metrics never loads prom-client, and records nothing.
  const metrics = config.metrics.enabled
    ? (await import('./modules/metrics/metrics.service.ts')).createMetrics(config.mediaStore === 's3' ? 'bucket' : 'disk')
    : null;
  const opened = await openMediaStore(config);
  const media = metrics ? metrics.counted(opened) : opened;
  const deps: Deps = { db: database, config, clock, media, startedAt: clock.now(), metrics: metrics?.recorder };

  const app = Fastify({
    logger: loggerOptions(config.logLevel, opts.logStream),
    logController: new OneLineARequest(),
    genReqId: () => randomUUID(),
    trustProxy: trustProxy(config.trustProxy),
    forceCloseConnections: 'idle',
    // A request without Host gets our JSON 400 (core/http-edge.ts) instead of Node's bare one.
    http: { requireHostHeader: false },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    frameworkErrors,
    clientErrorHandler,
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers() } },
  }).withTypeProvider<TypeBoxTypeProvider>() as unknown as App;
  app.decorate('deps', deps);
  app.decorate('metrics', metrics);
  app.decorateRequest('viewer', null);
  app.setValidatorCompiler(validatorCompiler);
  installErrorHandler(app);
  installHttpEdge(app);
  if (metrics) {
    // Before any plugin is registered: the request hook counts their routes too (static files, media).
    const { metricsRoutes } = await import('./modules/metrics/metrics.routes.ts');
    metricsRoutes(app, metrics, config.metrics, opts.threadMetrics?.scrape ?? metrics.text);
  }
  const recovered = await recoverInterrupted(deps);
  if (recovered.tempFiles + recovered.journals > 0) app.log.info(recovered, 'cleared what an interrupted run left in DATA_DIR/tmp');

  const index = new RouteIndex();
  index.attach(app);
  closeEmptyQueries(app);
  // While stopping, answer in-flight requests with `Connection: close` so keep-alive sockets end.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  // Hooks that never wait take a callback: an async one costs every request a promise and a microtask.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('X-Request-Id', req.id);
    done();
  });
  app.addHook('onSend', (_req, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });

  await app.register(fastifyCookie);
  await app.register(fastifyMultipart, { limits: { fieldSize: 64 * 1024, fields: 20, files: 1, headerPairs: 100 } });
  installAuth(app, deps);
  const checks: Record<string, Check> = { database: databaseCheck(database), media: mediaCheck(media) };
  if (config.rateLimits) {
    let store = opts.limitStore;
    if (!store && config.redisUrl) {
      // Loaded only when used: a single-machine server carries no Redis client.
      const { RedisStore } = await import('./core/rate-limit/redis-store.ts');
      const redis = new RedisStore(config.redisUrl, config.redisPrefix, app.log);
      await redis.ready();
      store = redis;
    }
    store ??= new MemoryStore();
    const ping = store.ping?.bind(store);
    if (ping) checks.redis = ping;
    installRateLimits(app, deps, store);
    if (!opts.limitStore) app.addHook('onClose', async () => store!.close());
  }

  await registerOpenApi(app);
  app.decorate('readiness', readinessChecks(checks, app.log));
  healthRoutes(app, app.readiness);
  metaRoutes(app, index);
  authRoutes(app, deps);
  apiKeysRoutes(app, deps);
  adminRoutes(app, deps);
  invitesRoutes(app, deps);
  moderationRoutes(app, deps);
  approvalRoutes(app, deps);
  usersMeRoutes(app, deps, media);
  preferencesRoutes(app, deps);
  uploadsRoutes(app, deps);
  commentsRoutes(app, deps);
  reactionsRoutes(app, deps);
  poolsRoutes(app, deps);
  const services = createServices(deps, { searchCore: opts.searchCore, similar: opts.similar, log: (err, what) => app.log.warn({ err }, what) });
  similarRoutes(app, deps, services.similar);
  postsRoutes(app, deps, services.posts);
  eventsRoutes(app, services.events);
  webhooksRoutes(app, deps, services.posts);
  savedSearchesRoutes(app, deps, services.posts);
  tagsRoutes(app, services.tags);
  tagDetailRoutes(app, deps);
  tagAliasesRoutes(app, deps);
  tagImplicationsRoutes(app, deps);
  app.decorate('warmUp', async () => {
    const started = Date.now();
    for (const [name, warm] of Object.entries({ posts: services.posts.warm, tags: services.tags.warm })) {
      try {
        await warm();
      } catch (err) {
        // Only costs the first request that needs it the wait.
        app.log.debug({ err, name }, 'warm-up failed');
      }
    }
    app.log.info({ ms: Date.now() - started }, 'warm-up done');
  });
  metrics?.watch({
    db: database,
    // With WORKERS > 1 the main thread reads the queue, and the sets when it keeps them (server.ts).
    queue: opts.threadMetrics ? undefined : database,
    keptBytes: opts.searchCore ? undefined : services.posts.keptBytes,
    openStreams: services.events.openStreams,
    readiness: app.readiness,
  });
  usersRoutes(app, deps);
  statsRoutes(app, deps);
  jobsRoutes(app, deps);
  danbooruRoutes(app, deps, services.posts);

  if (opened instanceof LocalMediaStore) {
    await app.register(fastifyStatic, {
      root: opened.root,
      prefix: '/media/',
      decorateReply: false,
      immutable: true,
      maxAge: '365d',
      setHeaders: (reply) => reply.header('X-Content-Type-Options', 'nosniff'),
    });
  } else {
    // Also with MEDIA_PUBLIC_URL: links given out before it was set keep working.
    serveStoredMedia(app, opened);
  }
  await app.register(fastifyStatic, {
    root: path.join(ROOT, 'public', 'static'),
    prefix: '/static/',
    decorateReply: false,
    maxAge: '1d',
    setHeaders: (reply) => reply.header('X-Content-Type-Options', 'nosniff'),
  });

  const csp = pageCsp(config);
  const webBuilt = fs.existsSync(path.join(WEB_DIST, 'index.html'));
  if (!webBuilt) {
    // A production install without a front-end build would otherwise look like a broken board.
    app.log.warn('web/dist is missing: serving the API only, no pages at /. Build it with `npm ci && npm run web:build` (README: Production install)');
  }
  if (webBuilt) {
    await app.register(fastifyStatic, {
      root: path.join(WEB_DIST, 'assets'),
      prefix: '/assets/',
      decorateReply: false,
      immutable: true,
      maxAge: '365d',
      setHeaders: (reply) => reply.header('X-Content-Type-Options', 'nosniff'),
    });
  }

  app.setNotFoundHandler(async (req, reply) => {
    if (webBuilt && wantsPage(req.method, req.url, req.headers.accept)) {
      const html = await fs.promises.readFile(path.join(WEB_DIST, 'index.html'));
      return reply
        .header('Content-Type', 'text/html; charset=utf-8')
        .header('Cache-Control', 'no-cache')
        .header('Content-Security-Policy', csp)
        .header('X-Content-Type-Options', 'nosniff')
        .send(html);
    }
    const allowed = index.allowedAt(req.url);
    // A route that exists for this method but found nothing (a missing media file) is a plain 404.
    if (allowed.length > 0 && !allowed.includes(req.method)) {
      reply.header('Allow', allowed.join(', '));
      return reply.code(405).send(errorBody(405, `Method ${req.method} is not allowed on ${req.url.split('?')[0]}; use ${allowed.join(', ')}`));
    }
    return reply.code(404).send(errorBody(404, `Not found: ${req.method} ${req.url.split('?')[0]}`));
  });

  // After start-up, never awaited by it: reads every older post's original once (a no-op when none is left).
  if (opts.fillMd5 ?? true) {
    const fill = backgroundMd5Fill(deps, app.log);
    app.decorate('md5Fill', fill.done);
    app.addHook('preClose', fill.stop);
  } else {
    app.decorate('md5Fill', Promise.resolve(null));
  }
  if (opts.jobs?.run ?? true) {
    let runner: JobRunner | null = null;
    app.addHook('onReady', async () => {
      runner = startJobRunner(deps, app.log, opts.jobs);
      // Webhooks and saved searches follow the events in the background too, where jobs run.
      services.webhooks.start();
      services.savedSearches.start();
    });
    // Before the database closes: the step under way finishes and its job goes back in the queue.
    app.addHook('preClose', async () => {
      await runner?.stop();
      await services.webhooks.stop();
      await services.savedSearches.stop();
    });
  }
  if (!opts.database) app.addHook('onClose', async () => database.close());
  app.addHook('onClose', async () => media.close());
  return app;
}
