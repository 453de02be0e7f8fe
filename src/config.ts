import os from 'node:os';
import path from 'node:path';
import type { SearchSettings } from './search/settings.ts';
import type { Rating } from './core/schemas.ts';
import {
  type EntryOf,
  type LOG_LEVELS,
  type MEDIA_STORES,
  type SEARCH_SETS,
  type NameOf,
  REGISTRATION_MODES,
  type Setting,
  type SettingEntry,
  settingOf,
  UPLOAD_APPROVAL_MODES,
} from './config-settings.ts';

/** Every setting the server reads, in one place: the environment variables of config-settings.ts (docs/settings.md). */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** Empty: SQLite at DATA_DIR/imageboard.db. Otherwise postgres://... */
  databaseUrl: string;
  /** PostgreSQL connections each process keeps at most (unused on SQLite). */
  databasePoolSize: number;
  /** Whether start-up runs the migrations the database lacks; off, it refuses to start on an older schema. */
  migrateOnStart: boolean;
  logLevel: (typeof LOG_LEVELS)[number];
  trustProxy: string;
  redisUrl: string;
  /** Prefix of every Redis key, so several boards (or test runs) can share one Redis. */
  redisPrefix: string;
  rateLimits: boolean;
  /** How long SIGTERM waits for in-flight requests before closing anyway. */
  shutdownTimeoutMs: number;
  /**
   * On SIGTERM, how long /readyz answers 503 while the server still serves, so a load balancer
   * takes the instance out before its port closes.
   */
  shutdownDelayMs: number;
  /** How often each process gives malloc's free pages back to the system (0: never). */
  mallocTrimMs: number;
  /** `imageboard import`'s CPU priority (niceness, 0-19): it leaves the cores to the board it fills. */
  importNice: number;
  /** Threads serving the port (threads.ts); 1: the main thread serves alone. */
  workers: number;
  /** With WORKERS > 1: the search engine's sets once in the main thread, a copy in each serving thread, or chosen by the board's size. */
  searchSets: (typeof SEARCH_SETS)[number];
  /**
   * `media check --fix` leaves files younger than this alone: an upload in progress (its temp
   * file, or its stored files before its row is written), on this or another instance.
   */
  mediaGraceMinutes: number;
  /**
   * Posts a new alias moves within its own request, so the answer finds them under the new name;
   * an alias on more posts moves them in a background job (modules/posts/posts.retag.ts).
   */
  aliasRetagNow: number;
  /** Where media live: DATA_DIR/media, or a bucket (storage/open.ts). */
  mediaStore: (typeof MEDIA_STORES)[number];
  /** Empty: media URLs are /media/... on this server. Otherwise their base (a CDN, the bucket), ending in `/`. */
  mediaPublicUrl: string;
  s3: S3Settings;
  /** Who may create an account: anyone, holders of an admin's invite code, or nobody (accounts from the CLI only). */
  registration: RegistrationMode;
  /** The board's address as its users reach it (no trailing `/`), for links made outside a request (password reset); empty: unknown. */
  publicUrl: string;
  uploads: UploadLimits;
  search: SearchSettings;
  /** Whose uploads wait for a moderator's approval (modules/approval/): nobody's, new users', or everyone's but moderators'. */
  uploadApproval: UploadApproval;
  /** With uploadApproval `new-users`: a user with fewer published posts than this has uploads held. */
  uploadApprovalMinPosts: number;
  /** The ratings GET /api/posts shows a visitor (no session, no key) unless the request names a rating itself; members choose their own. */
  visitorRatings: Rating[];
  /** Live event streams (modules/events/). */
  events: { keepMinutes: number; streamsPerUser: number; streamsPerIp: number; keepAliveSeconds: number; pollMs: number };
  /** Webhooks (modules/webhooks/). */
  webhooks: { allowPrivate: boolean; maxFailures: number; timeoutSeconds: number };
  /** GET /metrics (modules/metrics/): off, or on behind a bearer token, a listener of its own (port > 0), or both. */
  metrics: MetricsSettings;
}

export interface MetricsSettings {
  enabled: boolean;
  /** Empty: no token asked (then port is set). */
  token: string;
  /** 0: /metrics is on the board's port; else a listener of its own on host:port serves it, and only it. */
  port: number;
  host: string;
}

export { REGISTRATION_MODES, UPLOAD_APPROVAL_MODES };
export type UploadApproval = (typeof UPLOAD_APPROVAL_MODES)[number];
export type RegistrationMode = (typeof REGISTRATION_MODES)[number];

export interface S3Settings {
  /** Empty: the provider's default (AWS). Set: that address, path-style (`ENDPOINT/BUCKET/KEY`). */
  endpoint: string;
  bucket: string;
  region: string;
  /** Both empty: the SDK's own chain (environment, instance role). */
  accessKeyId: string;
  secretAccessKey: string;
}

export interface UploadLimits {
  maxImageBytes: number;
  maxVideoBytes: number;
  /** Decoded size limit; larger images are refused from their header, before decoding (bombs). */
  maxImagePixels: number;
  maxVideoSeconds: number;
  ffmpegPath: string;
  ffprobePath: string;
}

/** Uploads in progress, temporary files and media journals: on the same disk as the media. */
export const tmpDirOf = (config: Pick<Config, 'dataDir'>) => path.join(config.dataDir, 'tmp');

/** Files last written before this (ms, the disk's wall clock) are past the grace period. */
export const graceCutoff = (config: Pick<Config, 'mediaGraceMinutes'>) => Date.now() - config.mediaGraceMinutes * 60_000;

export class ConfigError extends Error {
  constructor(
    public readonly setting: string,
    message: string,
  ) {
    super(`Invalid setting ${setting}: ${message}`);
  }
}

const MB = 1024 * 1024;

type Env = Record<string, string | undefined>;
/** The values a `choice` or `list` setting takes. */
type ValueOf<N extends NameOf<'choice'> | NameOf<'list'>> = EntryOf<N> extends { values: readonly (infer V)[] } ? V : never;

/**
 * Reads the environment through the list of settings (config-settings.ts): each reader takes only
 * the names listed as its kind, and their defaults, ranges and values come from the list.
 */
function settingsReader(env: Env) {
  const entry = <K extends Setting['kind']>(_kind: K, name: NameOf<K>) => settingOf(name) as unknown as Extract<Setting, { kind: K }>;
  return {
    int(name: NameOf<'int'>): number {
      const { min, max, default: fallback } = entry('int', name);
      const raw = env[name];
      if (raw === undefined || raw === '') return fallback;
      if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `"${raw}" is not a whole number`);
      const n = Number(raw);
      if (n < min || n > max) throw new ConfigError(name, `${n} is outside ${min}..${max}`);
      return n;
    },
    /** Whether an int setting that also takes a word (WORKERS=auto) is set to it. */
    isAuto(name: Extract<SettingEntry, { auto: string }>['name']): boolean {
      return env[name]?.trim() === 'auto';
    },
    bool(name: NameOf<'bool'>): boolean {
      const raw = env[name]?.trim().toLowerCase();
      if (raw === undefined || raw === '') return entry('bool', name).default;
      if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
      if (['0', 'false', 'no', 'off'].includes(raw)) return false;
      throw new ConfigError(name, `"${env[name]}" is not one of true, false, 1, 0, yes, no, on, off`);
    },
    choice<N extends NameOf<'choice'>>(name: N): ValueOf<N> {
      const { values, default: fallback } = entry('choice', name);
      const raw = env[name];
      if (raw === undefined || raw === '') return fallback as ValueOf<N>;
      if (!values.includes(raw)) throw new ConfigError(name, `"${raw}" is not one of ${values.join(', ')}`);
      return raw as ValueOf<N>;
    },
    /** A comma list, any case and spacing, each once, in the order of the listed values; at least one. */
    list<N extends NameOf<'list'>>(name: N): ValueOf<N>[] {
      const { values, default: fallback } = entry('list', name);
      const raw = env[name]?.trim() ?? '';
      if (raw === '') return [...fallback] as ValueOf<N>[];
      const given = raw.split(',').map((r) => r.trim().toLowerCase());
      const unknown = given.find((r) => !values.includes(r));
      if (unknown !== undefined) throw new ConfigError(name, `"${unknown}" is not one of ${values.join(', ')}`);
      return values.filter((r) => given.includes(r)) as ValueOf<N>[];
    },
    url(name: NameOf<'url'>): string {
      const { protocols } = entry('url', name);
      const raw = env[name]?.trim() ?? '';
      if (raw === '') return '';
      let parsed: URL;
      try {
        parsed = new URL(raw);
      } catch {
        throw new ConfigError(name, `"${raw}" is not a URL`);
      }
      if (!protocols.includes(parsed.protocol)) {
        throw new ConfigError(name, `the scheme must be ${protocols.join(' or ')}`);
      }
      return raw;
    },
    text(name: NameOf<'text'>): string {
      return env[name]?.trim() || entry('text', name).default;
    },
  };
}
type Reader = ReturnType<typeof settingsReader>;

function s3Settings(read: Reader, store: Config['mediaStore']): S3Settings {
  const s3 = {
    endpoint: read.url('S3_ENDPOINT'),
    bucket: read.text('S3_BUCKET'),
    region: read.text('S3_REGION'),
    accessKeyId: read.text('S3_ACCESS_KEY_ID'),
    secretAccessKey: read.text('S3_SECRET_ACCESS_KEY'),
  };
  if (store === 's3' && s3.bucket === '') throw new ConfigError('S3_BUCKET', 'MEDIA_STORE=s3 needs the name of the bucket');
  // Lenient past AWS's rules for new buckets (3-63 lowercase): older buckets and other stores allow more.
  if (s3.bucket !== '' && !/^[A-Za-z0-9][A-Za-z0-9._-]{1,253}[A-Za-z0-9]$/.test(s3.bucket)) {
    throw new ConfigError('S3_BUCKET', `"${s3.bucket}" is not a bucket name (letters, digits, dots, hyphens and underscores)`);
  }
  if ((s3.accessKeyId === '') !== (s3.secretAccessKey === '')) {
    const missing = s3.accessKeyId === '' ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY';
    throw new ConfigError(missing, "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together (or neither, for the SDK's own credentials)");
  }
  return s3;
}

/** The shortest METRICS_TOKEN taken: a token is the only thing between the numbers and anyone who can reach the port. */
const METRICS_TOKEN_MIN = 16;

/** Metrics are refused on an open port: a token, a separate listener, or both. */
function metricsSettings(read: Reader, boardPort: number): MetricsSettings {
  const m = { enabled: read.bool('METRICS'), token: read.text('METRICS_TOKEN'), port: read.int('METRICS_PORT'), host: read.text('METRICS_HOST') };
  if (m.token !== '' && m.token.length < METRICS_TOKEN_MIN) throw new ConfigError('METRICS_TOKEN', `give at least ${METRICS_TOKEN_MIN} characters`);
  if (!m.enabled) return m;
  if (m.token === '' && m.port === 0) {
    throw new ConfigError(
      'METRICS',
      "METRICS=on needs METRICS_TOKEN (a bearer token each scrape sends) or METRICS_PORT (a listener of its own, on an internal address), or both: /metrics is never served open on the board's port",
    );
  }
  if (m.port !== 0 && m.port === boardPort) throw new ConfigError('METRICS_PORT', `${m.port} is the board's PORT; give the metrics listener another one`);
  return m;
}

/** A base URL ending in `/`, so a stored path is appended as it is. */
function publicBase(read: Reader): string {
  const raw = read.url('MEDIA_PUBLIC_URL');
  if (raw === '') return '';
  if (/[?#]/.test(raw)) throw new ConfigError('MEDIA_PUBLIC_URL', 'a base URL takes no query or fragment');
  return raw.endsWith('/') ? raw : `${raw}/`;
}

/** The board's own address, for links printed by the CLI: no query, fragment or trailing `/`. */
function siteUrl(read: Reader): string {
  const raw = read.url('PUBLIC_URL');
  if (/[?#]/.test(raw)) throw new ConfigError('PUBLIC_URL', 'a base URL takes no query or fragment');
  return raw.replace(/\/+$/, '');
}

export function loadConfig(env: Env = process.env): Config {
  const read = settingsReader(env);
  const mediaStore = read.choice('MEDIA_STORE');
  return {
    port: read.int('PORT'),
    host: read.text('HOST'),
    dataDir: path.resolve(read.text('DATA_DIR')),
    databaseUrl: read.url('DATABASE_URL'),
    databasePoolSize: read.int('DATABASE_POOL_SIZE'),
    migrateOnStart: read.bool('MIGRATE_ON_START'),
    logLevel: read.choice('LOG_LEVEL'),
    trustProxy: read.text('TRUST_PROXY'),
    redisUrl: read.url('REDIS_URL'),
    redisPrefix: read.text('REDIS_PREFIX'),
    rateLimits: read.bool('RATE_LIMITS'),
    shutdownTimeoutMs: read.int('SHUTDOWN_TIMEOUT_MS'),
    shutdownDelayMs: read.int('SHUTDOWN_DELAY_MS'),
    mallocTrimMs: read.int('MALLOC_TRIM_MS'),
    importNice: read.int('IMPORT_NICE'),
    workers: read.isAuto('WORKERS') ? os.availableParallelism() : read.int('WORKERS'),
    searchSets: read.choice('SEARCH_SETS'),
    mediaGraceMinutes: read.int('MEDIA_GRACE_MINUTES'),
    aliasRetagNow: read.int('ALIAS_RETAG_NOW'),
    mediaStore,
    mediaPublicUrl: publicBase(read),
    s3: s3Settings(read, mediaStore),
    registration: read.choice('REGISTRATION'),
    publicUrl: siteUrl(read),
    uploads: {
      maxImageBytes: read.int('MAX_IMAGE_MB') * MB,
      maxVideoBytes: read.int('MAX_VIDEO_MB') * MB,
      maxImagePixels: read.int('MAX_IMAGE_MEGAPIXELS') * 1_000_000,
      maxVideoSeconds: read.int('MAX_VIDEO_SECONDS'),
      ffmpegPath: read.text('FFMPEG_PATH'),
      ffprobePath: read.text('FFPROBE_PATH'),
    },
    search: {
      limits: {
        maxLength: read.int('SEARCH_MAX_LENGTH'),
        maxTerms: read.int('SEARCH_MAX_TERMS'),
        maxDepth: 10,
      },
      budgetMs: read.int('SEARCH_TIME_BUDGET_MS'),
    },
    uploadApproval: read.choice('UPLOAD_APPROVAL'),
    uploadApprovalMinPosts: read.int('UPLOAD_APPROVAL_MIN_POSTS'),
    visitorRatings: read.list('VISITOR_RATINGS'),
    events: {
      keepMinutes: read.int('EVENTS_KEEP_MINUTES'),
      streamsPerUser: read.int('EVENTS_STREAMS_PER_USER'),
      streamsPerIp: read.int('EVENTS_STREAMS_PER_IP'),
      keepAliveSeconds: read.int('EVENTS_KEEPALIVE_SECONDS'),
      pollMs: read.int('EVENTS_POLL_MS'),
    },
    webhooks: {
      allowPrivate: read.bool('WEBHOOK_ALLOW_PRIVATE'),
      maxFailures: read.int('WEBHOOK_MAX_FAILURES'),
      timeoutSeconds: read.int('WEBHOOK_TIMEOUT_SECONDS'),
    },
    metrics: metricsSettings(read, read.int('PORT')),
  };
}

/** A config for tests and tools: defaults plus overrides, no environment. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({}), logLevel: 'silent', ...overrides };
}
