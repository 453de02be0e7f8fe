import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ConfigError, loadConfig } from './config.ts';

test('defaults: port 3000 on 127.0.0.1, data under ./data, SQLite, info logs, limits on', () => {
  const c = loadConfig({});
  assert.equal(c.port, 3000);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.dataDir, path.resolve('data'));
  assert.equal(c.databaseUrl, '');
  assert.equal(c.logLevel, 'info');
  assert.equal(c.rateLimits, true);
  assert.equal(c.databasePoolSize, 10, 'the pool size it had before the setting existed');
  assert.equal(c.migrateOnStart, true);
  assert.equal(c.shutdownDelayMs, 5000);
  assert.equal(c.mallocTrimMs, 2000);
  assert.equal(c.importNice, 10);
  assert.equal(c.registration, 'open', 'anyone may sign up, as before the setting existed');
  assert.equal(c.publicUrl, '');
  assert.equal(c.uploadApproval, 'off', 'uploads are published at once, as before the setting existed');
  assert.equal(c.uploadApprovalMinPosts, 10);
  assert.deepEqual(c.visitorRatings, ['safe'], 'visitors see safe posts only');
});

test('VISITOR_RATINGS: a comma list, any case and spacing, each once, in rating order', () => {
  assert.deepEqual(loadConfig({ VISITOR_RATINGS: 'Unsafe, safe,safe' }).visitorRatings, ['safe', 'unsafe']);
  assert.deepEqual(loadConfig({ VISITOR_RATINGS: 'safe,sketchy,unsafe' }).visitorRatings, ['safe', 'sketchy', 'unsafe']);
});

test('every setting is read', () => {
  const c = loadConfig({
    PORT: '8080',
    HOST: '0.0.0.0',
    DATA_DIR: '/srv/board',
    DATABASE_URL: 'postgres://u@db/board',
    DATABASE_POOL_SIZE: '4',
    MIGRATE_ON_START: 'false',
    LOG_LEVEL: 'debug',
    TRUST_PROXY: '10.0.0.1',
    REDIS_URL: 'redis://127.0.0.1:6379',
    REDIS_PREFIX: 'board1:',
    RATE_LIMITS: 'off',
    SHUTDOWN_TIMEOUT_MS: '2500',
    SHUTDOWN_DELAY_MS: '1500',
    MALLOC_TRIM_MS: '0',
    IMPORT_NICE: '5',
    WORKERS: '2',
    SEARCH_SETS: 'shared',
    MEDIA_GRACE_MINUTES: '5',
    ALIAS_RETAG_NOW: '250',
    MAX_IMAGE_MB: '10',
    MAX_VIDEO_MB: '100',
    MAX_IMAGE_MEGAPIXELS: '20',
    MAX_VIDEO_SECONDS: '60',
    FFMPEG_PATH: '/opt/ff/ffmpeg',
    FFPROBE_PATH: '/opt/ff/ffprobe',
    SEARCH_MAX_LENGTH: '2000',
    SEARCH_MAX_TERMS: '40',
    SEARCH_TIME_BUDGET_MS: '500',
    MEDIA_STORE: 's3',
    MEDIA_PUBLIC_URL: 'https://cdn.example.org/board',
    S3_ENDPOINT: 'http://127.0.0.1:9000',
    S3_BUCKET: 'board-media',
    S3_REGION: 'eu-west-1',
    S3_ACCESS_KEY_ID: 'AKID',
    S3_SECRET_ACCESS_KEY: 'secret',
    REGISTRATION: 'invite',
    PUBLIC_URL: 'https://board.example.org/',
    UPLOAD_APPROVAL: 'new-users',
    UPLOAD_APPROVAL_MIN_POSTS: '3',
    VISITOR_RATINGS: 'safe,sketchy',
    EVENTS_KEEP_MINUTES: '90',
    EVENTS_STREAMS_PER_USER: '4',
    EVENTS_STREAMS_PER_IP: '8',
    EVENTS_KEEPALIVE_SECONDS: '15',
    EVENTS_POLL_MS: '500',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_MAX_FAILURES: '5',
    WEBHOOK_TIMEOUT_SECONDS: '3',
    METRICS: 'on',
    METRICS_TOKEN: 'a-scrape-token-of-some-length',
    METRICS_PORT: '9464',
    METRICS_HOST: '10.0.0.5',
  });
  assert.deepEqual(c, {
    port: 8080,
    host: '0.0.0.0',
    dataDir: '/srv/board',
    databaseUrl: 'postgres://u@db/board',
    databasePoolSize: 4,
    migrateOnStart: false,
    logLevel: 'debug',
    trustProxy: '10.0.0.1',
    redisUrl: 'redis://127.0.0.1:6379',
    redisPrefix: 'board1:',
    rateLimits: false,
    shutdownTimeoutMs: 2500,
    shutdownDelayMs: 1500,
    mallocTrimMs: 0,
    importNice: 5,
    workers: 2,
    searchSets: 'shared',
    mediaGraceMinutes: 5,
    aliasRetagNow: 250,
    mediaStore: 's3',
    mediaPublicUrl: 'https://cdn.example.org/board/',
    s3: { endpoint: 'http://127.0.0.1:9000', bucket: 'board-media', region: 'eu-west-1', accessKeyId: 'AKID', secretAccessKey: 'secret' },
    registration: 'invite',
    publicUrl: 'https://board.example.org',
    uploads: {
      maxImageBytes: 10 * 1024 * 1024,
      maxVideoBytes: 100 * 1024 * 1024,
      maxImagePixels: 20_000_000,
      maxVideoSeconds: 60,
      ffmpegPath: '/opt/ff/ffmpeg',
      ffprobePath: '/opt/ff/ffprobe',
    },
    search: { limits: { maxLength: 2000, maxTerms: 40, maxDepth: 10 }, budgetMs: 500 },
    uploadApproval: 'new-users',
    uploadApprovalMinPosts: 3,
    visitorRatings: ['safe', 'sketchy'],
    events: { keepMinutes: 90, streamsPerUser: 4, streamsPerIp: 8, keepAliveSeconds: 15, pollMs: 500 },
    webhooks: { allowPrivate: true, maxFailures: 5, timeoutSeconds: 3 },
    metrics: { enabled: true, token: 'a-scrape-token-of-some-length', port: 9464, host: '10.0.0.5' },
  });
});

test('a bad value names the setting', () => {
  const cases: [Record<string, string>, string][] = [
    [{ PORT: 'abc' }, 'PORT'],
    [{ PORT: '70000' }, 'PORT'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL'],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL'],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL'],
    [{ REDIS_URL: 'http://x' }, 'REDIS_URL'],
    [{ RATE_LIMITS: 'maybe' }, 'RATE_LIMITS'],
    [{ WORKERS: '0' }, 'WORKERS'],
    [{ MAX_IMAGE_MB: '0' }, 'MAX_IMAGE_MB'],
    [{ MAX_VIDEO_SECONDS: 'ten' }, 'MAX_VIDEO_SECONDS'],
    [{ DATABASE_POOL_SIZE: '0' }, 'DATABASE_POOL_SIZE'],
    [{ DATABASE_POOL_SIZE: 'many' }, 'DATABASE_POOL_SIZE'],
    [{ DATABASE_POOL_SIZE: '5000' }, 'DATABASE_POOL_SIZE'],
    [{ MIGRATE_ON_START: 'sometimes' }, 'MIGRATE_ON_START'],
    [{ SHUTDOWN_DELAY_MS: '-1' }, 'SHUTDOWN_DELAY_MS'],
    [{ MALLOC_TRIM_MS: 'often' }, 'MALLOC_TRIM_MS'],
    [{ IMPORT_NICE: '20' }, 'IMPORT_NICE'],
    [{ MEDIA_STORE: 'ftp' }, 'MEDIA_STORE'],
    [{ MEDIA_STORE: 's3' }, 'S3_BUCKET'],
    [{ MEDIA_STORE: 's3', S3_BUCKET: 'media/originals' }, 'S3_BUCKET'],
    [{ MEDIA_STORE: 's3', S3_BUCKET: 'media', S3_ENDPOINT: 'ftp://x' }, 'S3_ENDPOINT'],
    [{ MEDIA_STORE: 's3', S3_BUCKET: 'media', S3_ACCESS_KEY_ID: 'AKID' }, 'S3_SECRET_ACCESS_KEY'],
    [{ MEDIA_PUBLIC_URL: 'cdn.example.org' }, 'MEDIA_PUBLIC_URL'],
    [{ MEDIA_PUBLIC_URL: 'https://cdn.example.org/?v=1' }, 'MEDIA_PUBLIC_URL'],
    [{ REGISTRATION: 'invite-only' }, 'REGISTRATION'],
    [{ PUBLIC_URL: 'board.example.org' }, 'PUBLIC_URL'],
    [{ UPLOAD_APPROVAL: 'some' }, 'UPLOAD_APPROVAL'],
    [{ UPLOAD_APPROVAL_MIN_POSTS: '0' }, 'UPLOAD_APPROVAL_MIN_POSTS'],
    [{ PUBLIC_URL: 'https://board.example.org/#x' }, 'PUBLIC_URL'],
    [{ VISITOR_RATINGS: 'safe,explicit' }, 'VISITOR_RATINGS'],
    [{ VISITOR_RATINGS: ',' }, 'VISITOR_RATINGS'],
  ];
  for (const [env, name] of cases) {
    assert.throws(
      () => loadConfig(env),
      (err: unknown) => err instanceof ConfigError && err.setting === name && err.message.includes(name),
    );
  }
});
