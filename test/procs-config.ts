// How a suite's Config becomes the environment of real server processes (test/procs.ts): the
// settings of src/config-settings.ts (docs/settings.md) read backwards. Whatever the environment cannot say fails the suite
// at start, so a suite never runs silently on other settings than it asked for.
import { isDeepStrictEqual } from 'node:util';
import { loadConfig, type Config } from '../src/config.ts';

const MB = 1024 * 1024;

/** The settings an operator would set to run a server with `config` (the search strategy aside: tests only). */
export function configEnv(config: Config): Record<string, string> {
  const env: Record<string, string> = {
    PORT: String(config.port),
    HOST: config.host,
    DATA_DIR: config.dataDir,
    DATABASE_URL: config.databaseUrl,
    DATABASE_POOL_SIZE: String(config.databasePoolSize),
    MIGRATE_ON_START: String(config.migrateOnStart),
    LOG_LEVEL: config.logLevel,
    TRUST_PROXY: config.trustProxy,
    REDIS_URL: config.redisUrl,
    REDIS_PREFIX: config.redisPrefix,
    RATE_LIMITS: config.rateLimits ? 'on' : 'off',
    SHUTDOWN_TIMEOUT_MS: String(config.shutdownTimeoutMs),
    SHUTDOWN_DELAY_MS: String(config.shutdownDelayMs),
    WORKERS: String(config.workers),
    SEARCH_SETS: config.searchSets,
    MEDIA_GRACE_MINUTES: String(config.mediaGraceMinutes),
    ALIAS_RETAG_NOW: String(config.aliasRetagNow),
    MEDIA_STORE: config.mediaStore,
    MEDIA_PUBLIC_URL: config.mediaPublicUrl,
    S3_ENDPOINT: config.s3.endpoint,
    S3_BUCKET: config.s3.bucket,
    S3_REGION: config.s3.region,
    S3_ACCESS_KEY_ID: config.s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: config.s3.secretAccessKey,
    REGISTRATION: config.registration,
    PUBLIC_URL: config.publicUrl,
    MAX_IMAGE_MB: String(config.uploads.maxImageBytes / MB),
    MAX_VIDEO_MB: String(config.uploads.maxVideoBytes / MB),
    MAX_IMAGE_MEGAPIXELS: String(config.uploads.maxImagePixels / 1_000_000),
    MAX_VIDEO_SECONDS: String(config.uploads.maxVideoSeconds),
    FFMPEG_PATH: config.uploads.ffmpegPath,
    FFPROBE_PATH: config.uploads.ffprobePath,
    SEARCH_MAX_LENGTH: String(config.search.limits.maxLength),
    SEARCH_MAX_TERMS: String(config.search.limits.maxTerms),
    SEARCH_TIME_BUDGET_MS: String(config.search.budgetMs),
    UPLOAD_APPROVAL: config.uploadApproval,
    UPLOAD_APPROVAL_MIN_POSTS: String(config.uploadApprovalMinPosts),
    VISITOR_RATINGS: config.visitorRatings.join(','),
    EVENTS_KEEP_MINUTES: String(config.events.keepMinutes),
    EVENTS_STREAMS_PER_USER: String(config.events.streamsPerUser),
    EVENTS_STREAMS_PER_IP: String(config.events.streamsPerIp),
    EVENTS_KEEPALIVE_SECONDS: String(config.events.keepAliveSeconds),
    EVENTS_POLL_MS: String(config.events.pollMs),
    WEBHOOK_ALLOW_PRIVATE: String(config.webhooks.allowPrivate),
    WEBHOOK_MAX_FAILURES: String(config.webhooks.maxFailures),
    WEBHOOK_TIMEOUT_SECONDS: String(config.webhooks.timeoutSeconds),
    METRICS: String(config.metrics.enabled),
    METRICS_TOKEN: config.metrics.token,
    METRICS_PORT: String(config.metrics.port),
    METRICS_HOST: config.metrics.host,
  };
  if ((config.search.strategy ?? 'auto') !== 'auto') {
    throw new Error(`procs mode: the search is forced to strategy ${config.search.strategy}, a setting of tests only (a server chooses per query)`);
  }
  const { search, ...read } = loadEnv(env);
  const { search: wanted, ...given } = config;
  if (!isDeepStrictEqual(read, given) || !isDeepStrictEqual(search.limits, wanted.limits) || search.budgetMs !== wanted.budgetMs) {
    throw new Error(`procs mode: these settings cannot be given to a server process as environment variables: ${differences(config, { ...read, search })}`);
  }
  return env;
}

/** The settings as a process reads them; one it would refuse says which and why. */
function loadEnv(env: Record<string, string>): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    throw new Error(`procs mode: a setting cannot be given to a server process: ${(err as Error).message}`);
  }
}

function differences(wanted: Config, read: Config): string {
  const keys = Object.keys(wanted) as (keyof Config)[];
  return keys
    .filter((k) => !isDeepStrictEqual(wanted[k], read[k]))
    .map((k) => `${k} (${JSON.stringify(wanted[k])}, read back as ${JSON.stringify(read[k])})`)
    .join('; ');
}

/**
 * Why a suite cannot run against server processes, or null: settings the environment cannot say
 * (a search strategy forced for a test, sizes below a MB), or app options a process does not take.
 */
export function procsUnfit(config: Config, appOptions: { jobs?: object } & Record<string, unknown>): string | null {
  try {
    configEnv(config);
  } catch (err) {
    return (err as Error).message.replace(/^procs mode: /, '');
  }
  // A quicker job poll only hurries a suite along: the servers poll at their own pace and wake at once for jobs they make.
  const { jobs, ...others } = appOptions;
  const unfit = [
    ...Object.keys(others),
    ...Object.keys(jobs ?? {})
      .filter((k) => k !== 'pollMs')
      .map((k) => `jobs.${k}`),
  ];
  return unfit.length ? `it builds its app with options a server process does not take (${unfit.join(', ')})` : null;
}
