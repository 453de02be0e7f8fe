import os from 'node:os';
import path from 'node:path';
import type { SearchSettings } from './search/search.ts';
import { RATINGS, type Rating } from './core/schemas.ts';

/** Every setting the server reads, in one place. See the settings table in README.md. */
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
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
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
  /** Server processes sharing the port (the first serves and hands connections out: workers.ts); 1 runs alone. */
  workers: number;
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
  mediaStore: 'local' | 's3';
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
}

export const UPLOAD_APPROVAL_MODES = ['off', 'new-users', 'all'] as const;
export type UploadApproval = (typeof UPLOAD_APPROVAL_MODES)[number];

export const REGISTRATION_MODES = ['open', 'invite', 'closed'] as const;
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
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(name, `"${raw}" is not a whole number`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `${n} is outside ${min}..${max}`);
  return n;
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(name, `"${env[name]}" is not one of true, false, 1, 0, yes, no, on, off`);
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `"${raw}" is not one of ${allowed.join(', ')}`);
  }
  return raw as T;
}

/** A comma list of ratings, each once, in the order safe, sketchy, unsafe; at least one. */
function ratings(env: Env, name: string, fallback: Rating[]): Rating[] {
  const raw = env[name]?.trim() ?? '';
  if (raw === '') return fallback;
  const given = raw.split(',').map((r) => r.trim().toLowerCase());
  const unknown = given.find((r) => !(RATINGS as readonly string[]).includes(r));
  if (unknown !== undefined) throw new ConfigError(name, `"${unknown}" is not one of ${RATINGS.join(', ')}`);
  return RATINGS.filter((r) => given.includes(r));
}

function url(env: Env, name: string, protocols: string[]): string {
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
}

function s3Settings(env: Env, store: Config['mediaStore']): S3Settings {
  const s3 = {
    endpoint: url(env, 'S3_ENDPOINT', ['http:', 'https:']),
    bucket: env.S3_BUCKET?.trim() ?? '',
    region: env.S3_REGION?.trim() || 'us-east-1',
    accessKeyId: env.S3_ACCESS_KEY_ID?.trim() ?? '',
    secretAccessKey: env.S3_SECRET_ACCESS_KEY?.trim() ?? '',
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

/** A base URL ending in `/`, so a stored path is appended as it is. */
function publicBase(env: Env): string {
  const raw = url(env, 'MEDIA_PUBLIC_URL', ['http:', 'https:']);
  if (raw === '') return '';
  if (/[?#]/.test(raw)) throw new ConfigError('MEDIA_PUBLIC_URL', 'a base URL takes no query or fragment');
  return raw.endsWith('/') ? raw : `${raw}/`;
}

/** The board's own address, for links printed by the CLI: no query, fragment or trailing `/`. */
function siteUrl(env: Env): string {
  const raw = url(env, 'PUBLIC_URL', ['http:', 'https:']);
  if (/[?#]/.test(raw)) throw new ConfigError('PUBLIC_URL', 'a base URL takes no query or fragment');
  return raw.replace(/\/+$/, '');
}

export function loadConfig(env: Env = process.env): Config {
  const mediaStore = oneOf(env, 'MEDIA_STORE', ['local', 's3'] as const, 'local');
  return {
    port: int(env, 'PORT', 3000, 0, 65535),
    host: env.HOST?.trim() || '127.0.0.1',
    dataDir: path.resolve(env.DATA_DIR?.trim() || './data'),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    databasePoolSize: int(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
    migrateOnStart: bool(env, 'MIGRATE_ON_START', true),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    trustProxy: env.TRUST_PROXY?.trim() ?? '',
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    redisPrefix: env.REDIS_PREFIX?.trim() || 'imageboard:',
    rateLimits: bool(env, 'RATE_LIMITS', true),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    shutdownDelayMs: int(env, 'SHUTDOWN_DELAY_MS', 5000, 0, 600_000),
    mallocTrimMs: int(env, 'MALLOC_TRIM_MS', 2000, 0, 600_000),
    workers: env.WORKERS?.trim() === 'auto' ? os.availableParallelism() : int(env, 'WORKERS', 1, 1, 64),
    mediaGraceMinutes: int(env, 'MEDIA_GRACE_MINUTES', 60, 0, 10_080),
    aliasRetagNow: int(env, 'ALIAS_RETAG_NOW', 1000, 0, 100_000),
    mediaStore,
    mediaPublicUrl: publicBase(env),
    s3: s3Settings(env, mediaStore),
    registration: oneOf(env, 'REGISTRATION', REGISTRATION_MODES, 'open'),
    publicUrl: siteUrl(env),
    uploads: {
      maxImageBytes: int(env, 'MAX_IMAGE_MB', 50, 1, 4096) * MB,
      maxVideoBytes: int(env, 'MAX_VIDEO_MB', 200, 1, 16384) * MB,
      maxImagePixels: int(env, 'MAX_IMAGE_MEGAPIXELS', 50, 1, 1000) * 1_000_000,
      maxVideoSeconds: int(env, 'MAX_VIDEO_SECONDS', 600, 1, 86_400),
      ffmpegPath: env.FFMPEG_PATH?.trim() || 'ffmpeg',
      ffprobePath: env.FFPROBE_PATH?.trim() || 'ffprobe',
    },
    search: {
      limits: {
        maxLength: int(env, 'SEARCH_MAX_LENGTH', 1000, 10, 10_000),
        maxTerms: int(env, 'SEARCH_MAX_TERMS', 20, 1, 200),
        maxDepth: 10,
      },
      budgetMs: int(env, 'SEARCH_TIME_BUDGET_MS', 2000, 10, 600_000),
    },
    uploadApproval: oneOf(env, 'UPLOAD_APPROVAL', UPLOAD_APPROVAL_MODES, 'off'),
    uploadApprovalMinPosts: int(env, 'UPLOAD_APPROVAL_MIN_POSTS', 10, 1, 1_000_000),
    visitorRatings: ratings(env, 'VISITOR_RATINGS', ['safe']),
  };
}

/** A config for tests and tools: defaults plus overrides, no environment. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...loadConfig({}), logLevel: 'silent', ...overrides };
}
