import { RATINGS } from './core/schemas.ts';

// Every environment variable the server, the command line, `npm start` and the build read, in one
// list: config.ts reads the environment only through it (its readers take these names alone,
// checked by the compiler), docs/settings.md is rendered from it (config-doc.ts), and a test fails
// when a name read in src/ (tests aside) has no entry here (config-settings.test.ts).

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const UPLOAD_APPROVAL_MODES = ['off', 'new-users', 'all'] as const;
export const REGISTRATION_MODES = ['open', 'invite', 'closed'] as const;
export const MEDIA_STORES = ['local', 's3'] as const;
export const SEARCH_SETS = ['auto', 'shared', 'each'] as const;

/** The sections of docs/settings.md, in their order. */
export const SETTING_GROUPS = {
  server: 'Server',
  database: 'Database',
  storage: 'Data and media storage',
  uploads: 'Uploads',
  accounts: 'Accounts and moderation',
  search: 'Search and tags',
  redis: 'Redis and rate limits',
  events: 'Live events',
  logging: 'Logging',
  metrics: 'Metrics',
  memory: 'Memory',
  cli: 'Command line',
  build: 'Build',
  internal: 'Set by the board itself',
} as const;

interface Common {
  name: string;
  group: keyof typeof SETTING_GROUPS;
  /** One line for docs/settings.md. */
  meaning: string;
}

/**
 * How a value is read. An unset or empty variable is the default. `text` is trimmed and taken as
 * it is (`allowed` says what makes sense); `url` is empty by default and must have one of the
 * schemes; `list` is a comma list of `values`, any case, kept in the order of `values`.
 */
export type Setting = Common &
  (
    | {
        kind: 'int';
        default: number;
        min: number;
        max: number;
        /** A word also taken, and what it means (WORKERS=auto). */
        auto?: string;
      }
    | { kind: 'bool'; default: boolean }
    | { kind: 'choice'; values: readonly string[]; default: string }
    | { kind: 'list'; values: readonly string[]; default: readonly string[] }
    | { kind: 'url'; protocols: readonly string[] }
    | {
        kind: 'text';
        default: string;
        allowed: string;
        /** The default as docs/settings.md shows it, when it is not simply the value. */
        shown?: string;
      }
  );

export const SETTINGS = [
  // Server
  { name: 'PORT', group: 'server', kind: 'int', default: 3000, min: 0, max: 65535, meaning: 'TCP port to listen on' },
  { name: 'HOST', group: 'server', kind: 'text', default: '127.0.0.1', allowed: 'an address', meaning: 'Address to listen on (`0.0.0.0` for every interface)' },
  {
    name: 'WORKERS',
    group: 'server',
    kind: 'int',
    default: 1,
    min: 1,
    max: 64,
    auto: 'one a core',
    meaning:
      'Threads of the server process that serve the port. With more than one, the main thread migrates, keeps what they share (the similar-image index, and the search sets by `SEARCH_SETS`), and opens the port once every thread can serve; the kernel gives each new connection to one of them (a keep-alive connection stays where it landed). A thread that dies takes the process down once the others have finished their requests (exit 1: let systemd, Docker or Kubernetes start it again). With more than one, set `REDIS_URL` so rate limits are shared',
  },
  {
    name: 'SEARCH_SETS',
    group: 'server',
    kind: 'choice',
    values: SEARCH_SETS,
    default: 'auto',
    meaning:
      "With `WORKERS` > 1, where the search engine's kept sets live. `shared`: once, in the main thread, which every serving thread asks (one copy however many serve; one thread evaluates every search). `each`: every serving thread keeps its own (searches run in parallel; memory a copy a thread). `auto`: `each` while a copy a thread stays under 256 MB in all (about a million posts a thread: 64 bytes a post), else `shared` ([architecture.md](architecture.md#ten-million-posts-and-past-one-machine))",
  },
  {
    name: 'TRUST_PROXY',
    group: 'server',
    kind: 'text',
    default: '',
    allowed: '`true`, a hop count, or comma-separated addresses/CIDRs',
    meaning: 'Proxies whose `X-Forwarded-For` is trusted. Empty: the socket address is the client',
  },
  {
    name: 'PUBLIC_URL',
    group: 'server',
    kind: 'url',
    protocols: ['http:', 'https:'],
    meaning:
      "The board's address as users reach it (`https://board.example.org`; no query or fragment, a trailing `/` is dropped): the start of the links `imageboard user reset-password` prints. Empty: it prints the path alone",
  },
  {
    name: 'SHUTDOWN_DELAY_MS',
    group: 'server',
    kind: 'int',
    default: 5000,
    min: 0,
    max: 600_000,
    meaning:
      'On SIGTERM, how long `/readyz` answers 503 `draining` while the server still serves, before the port closes (so a load balancer takes the instance out first; [deploy.md](deploy.md#health-checks)). SIGINT skips it',
  },
  {
    name: 'SHUTDOWN_TIMEOUT_MS',
    group: 'server',
    kind: 'int',
    default: 10_000,
    min: 0,
    max: 600_000,
    meaning: 'On SIGTERM/SIGINT, how long in-flight requests may take, once the port is closed, before the process exits anyway',
  },

  // Database
  {
    name: 'DATABASE_URL',
    group: 'database',
    kind: 'url',
    protocols: ['postgres:', 'postgresql:'],
    meaning: '`postgres://user@host:5432/db` to use PostgreSQL. Empty: SQLite at `DATA_DIR/imageboard.db` (WAL mode)',
  },
  {
    name: 'DATABASE_POOL_SIZE',
    group: 'database',
    kind: 'int',
    default: 10,
    min: 1,
    max: 1000,
    meaning: 'PostgreSQL connections each thread keeps at most (with `WORKERS`, per serving thread, and one pool more for the search engine; unused on SQLite)',
  },
  {
    name: 'MIGRATE_ON_START',
    group: 'database',
    kind: 'bool',
    default: true,
    meaning:
      'Start-up runs the migrations the database lacks. `false`: run `npx imageboard migrate` as a step of its own; a server finding the schema behind exits with a message saying so ([deploy.md](deploy.md#migrations))',
  },

  // Data and media storage
  {
    name: 'DATA_DIR',
    group: 'storage',
    kind: 'text',
    default: './data',
    allowed: 'a path',
    meaning: 'Where the SQLite database (`imageboard.db`), temporary files (`tmp/`) and media (`media/`, with `MEDIA_STORE=local`) live',
  },
  {
    name: 'MEDIA_STORE',
    group: 'storage',
    kind: 'choice',
    values: MEDIA_STORES,
    default: 'local',
    meaning:
      '`local`: media under `DATA_DIR/media`. `s3`: in the bucket of the `S3_*` settings, shared by every instance ([deploy.md](deploy.md#object-storage))',
  },
  {
    name: 'MEDIA_PUBLIC_URL',
    group: 'storage',
    kind: 'url',
    protocols: ['http:', 'https:'],
    meaning:
      "Where clients fetch media (a CDN, the bucket's public address; no query or fragment): the API's media URLs start with it. Empty: this server serves them under `/media/`",
  },
  {
    name: 'S3_ENDPOINT',
    group: 'storage',
    kind: 'url',
    protocols: ['http:', 'https:'],
    meaning: "The bucket's S3 service. Empty: AWS; set: that address, used path-style (MinIO, Ceph, ...)",
  },
  {
    name: 'S3_BUCKET',
    group: 'storage',
    kind: 'text',
    default: '',
    allowed: 'a bucket name (letters, digits, `.`, `-`, `_`)',
    meaning: 'The bucket media live in; needed with `MEDIA_STORE=s3`',
  },
  { name: 'S3_REGION', group: 'storage', kind: 'text', default: 'us-east-1', allowed: 'a region name', meaning: "The bucket's region" },
  {
    name: 'S3_ACCESS_KEY_ID',
    group: 'storage',
    kind: 'text',
    default: '',
    allowed: 'a key id',
    meaning: "Set with `S3_SECRET_ACCESS_KEY`, or leave both empty for the AWS SDK's own credentials (environment, instance role)",
  },
  { name: 'S3_SECRET_ACCESS_KEY', group: 'storage', kind: 'text', default: '', allowed: 'a secret key', meaning: 'Set with `S3_ACCESS_KEY_ID`' },
  {
    name: 'MEDIA_GRACE_MINUTES',
    group: 'storage',
    kind: 'int',
    default: 60,
    min: 0,
    max: 10_080,
    meaning:
      "`imageboard media check --fix` leaves temp and stored files younger than this alone (an upload in progress, here or on another instance sharing the disk), so it is safe on a live board. Start-up clears what a killed process of this host left in `DATA_DIR/tmp` at once, and other processes' files once they are older than this",
  },

  // Uploads
  { name: 'MAX_IMAGE_MB', group: 'uploads', kind: 'int', default: 50, min: 1, max: 4096, meaning: 'Largest image upload, in MB (413 above)' },
  { name: 'MAX_VIDEO_MB', group: 'uploads', kind: 'int', default: 200, min: 1, max: 16_384, meaning: 'Largest video upload, in MB (413 above)' },
  {
    name: 'MAX_IMAGE_MEGAPIXELS',
    group: 'uploads',
    kind: 'int',
    default: 50,
    min: 1,
    max: 1000,
    meaning: 'Largest decoded image, in megapixels; checked from the header before decoding (decompression bombs get 413)',
  },
  { name: 'MAX_VIDEO_SECONDS', group: 'uploads', kind: 'int', default: 600, min: 1, max: 86_400, meaning: 'Longest video (413 above)' },
  {
    name: 'FFMPEG_PATH',
    group: 'uploads',
    kind: 'text',
    default: 'ffmpeg',
    allowed: 'a command or path',
    meaning: "The system's ffmpeg (Debian package `ffmpeg`). Without it the server runs and takes images; video uploads get a 415 saying ffmpeg is needed",
  },
  { name: 'FFPROBE_PATH', group: 'uploads', kind: 'text', default: 'ffprobe', allowed: 'a command or path', meaning: "The system's ffprobe, as `FFMPEG_PATH`" },

  // Accounts and moderation
  {
    name: 'REGISTRATION',
    group: 'accounts',
    kind: 'choice',
    values: REGISTRATION_MODES,
    default: 'open',
    meaning:
      'Who may sign up: `open` (anyone), `invite` (with a one-time code an admin makes: `POST /api/admin/invites`), `closed` (nobody; accounts come from `imageboard user create`)',
  },
  {
    name: 'UPLOAD_APPROVAL',
    group: 'accounts',
    kind: 'choice',
    values: UPLOAD_APPROVAL_MODES,
    default: 'off',
    meaning:
      "Whose uploads wait for a moderator's approval before anyone else sees them: `off`, `new-users` (fewer published posts than `UPLOAD_APPROVAL_MIN_POSTS`), `all` (moderators and admins are never held). Queue: `GET /api/moderation/pending` and the Pending tab of /moderation",
  },
  {
    name: 'UPLOAD_APPROVAL_MIN_POSTS',
    group: 'accounts',
    kind: 'int',
    default: 10,
    min: 1,
    max: 1_000_000,
    meaning: 'With `UPLOAD_APPROVAL=new-users`: published posts a user needs before their uploads go up at once',
  },
  {
    name: 'VISITOR_RATINGS',
    group: 'accounts',
    kind: 'list',
    values: RATINGS,
    default: ['safe'],
    meaning: 'Ratings `GET /api/posts` lists to visitors unless the request names a rating; members choose their own at `/api/users/me/preferences`',
  },

  // Live events
  {
    name: 'EVENTS_KEEP_MINUTES',
    group: 'events',
    kind: 'int',
    default: 120,
    min: 60,
    max: 10_080,
    meaning: 'How long events are kept, so a stream of `GET /api/events` resumed with `Last-Event-ID` misses none from this far back',
  },
  {
    name: 'EVENTS_STREAMS_PER_USER',
    group: 'events',
    kind: 'int',
    default: 10,
    min: 1,
    max: 1_000,
    meaning: 'Open event streams a member may hold on one serving process (more: 429)',
  },
  {
    name: 'EVENTS_STREAMS_PER_IP',
    group: 'events',
    kind: 'int',
    default: 20,
    min: 1,
    max: 10_000,
    meaning: 'Open event streams one address may hold on one serving process, signed in or not (more: 429)',
  },
  {
    name: 'EVENTS_KEEPALIVE_SECONDS',
    group: 'events',
    kind: 'int',
    default: 25,
    min: 1,
    max: 300,
    meaning: 'How often an idle event stream gets a comment line, so proxies and clients do not take it for dead',
  },
  {
    name: 'EVENTS_POLL_MS',
    group: 'events',
    kind: 'int',
    default: 250,
    min: 10,
    max: 10_000,
    meaning: 'While any event stream is open, how often a process reads the new events, when no wake-up came sooner',
  },

  {
    name: 'WEBHOOK_ALLOW_PRIVATE',
    group: 'events',
    kind: 'bool',
    default: false,
    meaning:
      'Webhooks may target loopback, private, link-local and other non-public addresses. Off, such a target is refused when the webhook is registered and again at each delivery (the address is checked as it is connected to), so a webhook cannot reach the board’s own network',
  },
  {
    name: 'WEBHOOK_MAX_FAILURES',
    group: 'events',
    kind: 'int',
    default: 20,
    min: 1,
    max: 1_000,
    meaning: 'Failed delivery attempts in a row that turn a webhook off (its owner turns it on again with `PATCH /api/webhooks/<id>`)',
  },
  {
    name: 'WEBHOOK_TIMEOUT_SECONDS',
    group: 'events',
    kind: 'int',
    default: 10,
    min: 1,
    max: 60,
    meaning: 'How long a delivery waits for its target to answer before the attempt counts as failed',
  },

  // Search and tags
  {
    name: 'SEARCH_MAX_LENGTH',
    group: 'search',
    kind: 'int',
    default: 1000,
    min: 10,
    max: 10_000,
    meaning: 'Longest search query `q`, in characters ([search.md](search.md)); past it, a 400 at the position',
  },
  {
    name: 'SEARCH_MAX_TERMS',
    group: 'search',
    kind: 'int',
    default: 20,
    min: 1,
    max: 200,
    meaning: 'Most terms in a search query; past them, a 400 at the position',
  },
  {
    name: 'SEARCH_TIME_BUDGET_MS',
    group: 'search',
    kind: 'int',
    default: 2000,
    min: 10,
    max: 600_000,
    meaning: 'A search still running after this long ends with 503 and `Retry-After`',
  },
  {
    name: 'ALIAS_RETAG_NOW',
    group: 'search',
    kind: 'int',
    default: 1000,
    min: 0,
    max: 100_000,
    meaning:
      "A new tag alias moves up to this many posts within its request (the answer already finds them under the new name), and a tag rename rewrites up to this many posts' tags; more are done by a background job",
  },

  // Redis and rate limits
  {
    name: 'REDIS_URL',
    group: 'redis',
    kind: 'url',
    protocols: ['redis:', 'rediss:'],
    meaning: '`redis://host:6379`: rate-limit counters live there, shared by every instance. Empty: counted in memory, per process',
  },
  {
    name: 'REDIS_PREFIX',
    group: 'redis',
    kind: 'text',
    default: 'imageboard:',
    allowed: 'any text',
    meaning: 'Prefix of every Redis key, so several boards can share one Redis',
  },
  { name: 'RATE_LIMITS', group: 'redis', kind: 'bool', default: true, meaning: '`false` turns rate limiting off (benchmarks only)' },

  // Logging
  {
    name: 'LOG_LEVEL',
    group: 'logging',
    kind: 'choice',
    values: LOG_LEVELS,
    default: 'info',
    meaning:
      "The least severe log lines written: pino's JSON lines, one a request with its request id, status and time; on a terminal the same made readable (`12:04:31 INFO  GET /api/posts 200 3.2 ms`)",
  },

  // Metrics
  {
    name: 'METRICS',
    group: 'metrics',
    kind: 'bool',
    default: false,
    meaning:
      "`GET /metrics` in Prometheus' text format ([deploy.md](deploy.md#metrics)). On, it needs `METRICS_TOKEN`, `METRICS_PORT`, or both: the server refuses to start otherwise. Off: `/metrics` is 404",
  },
  {
    name: 'METRICS_TOKEN',
    group: 'metrics',
    kind: 'text',
    default: '',
    allowed: 'at least 16 characters',
    meaning:
      'The bearer token a scrape must send (`Authorization: Bearer <token>`; without it, or with another, 401). Empty: none asked (then `METRICS_PORT` is needed)',
  },
  {
    name: 'METRICS_PORT',
    group: 'metrics',
    kind: 'int',
    default: 0,
    min: 0,
    max: 65535,
    meaning:
      "A separate listener that serves `/metrics` alone, on `METRICS_HOST`; the board's own port then answers 404 there. `0`: no separate listener, `/metrics` is on `PORT` behind `METRICS_TOKEN`",
  },
  {
    name: 'METRICS_HOST',
    group: 'metrics',
    kind: 'text',
    default: '127.0.0.1',
    allowed: 'an address',
    meaning: "The address of `METRICS_PORT`'s listener (an internal interface; `0.0.0.0` for every one)",
  },

  // Memory
  {
    name: 'MALLOC_TRIM_MS',
    group: 'memory',
    kind: 'int',
    default: 2000,
    min: 0,
    max: 600_000,
    meaning:
      "How often each process gives malloc's free pages back to the system (glibc's `malloc_trim`, through the addon `npm run build` compiles on Linux; [deploy.md](deploy.md#install-and-start)). `0`: never",
  },
  {
    name: 'MALLOC_ARENA_MAX',
    group: 'memory',
    kind: 'text',
    default: '2',
    shown: "`2` with `npm start` and in workers, else glibc's",
    allowed: 'a whole number',
    meaning:
      "glibc's own: malloc arenas a process keeps (fewer keep less freed memory). `npm start` (`scripts/start.sh`) sets it unless it is set, and so does the first process for the workers it starts",
  },
  {
    name: 'MALLOC_MMAP_THRESHOLD_',
    group: 'memory',
    kind: 'text',
    default: '65536',
    shown: "`65536` with `npm start`, else glibc's",
    allowed: 'bytes',
    meaning: "glibc's own: blocks from this size up are mapped, and given back, on their own. Set by `npm start` unless it is set",
  },
  {
    name: 'MALLOC_TRIM_THRESHOLD_',
    group: 'memory',
    kind: 'text',
    default: '131072',
    shown: "`131072` with `npm start`, else glibc's",
    allowed: 'bytes',
    meaning: "glibc's own: free memory at the top of the heap past this is given back. Set by `npm start` unless it is set",
  },

  // Command line
  {
    name: 'IMPORT_NICE',
    group: 'cli',
    kind: 'int',
    default: 10,
    min: 0,
    max: 19,
    meaning: 'Read by `imageboard import` alone: its CPU priority (niceness), so it leaves the cores to the board it fills; `0`: the same as the server',
  },
  {
    name: 'CC',
    group: 'build',
    kind: 'text',
    default: 'cc',
    allowed: 'a command or path',
    meaning:
      'Read by `npm run build` (`scripts/build-native.mjs`): the C compiler of the malloc-trim addon (Linux only; without one the board runs without the addon)',
  },

  // Set by the board itself
  {
    name: 'NODE_ENV',
    group: 'internal',
    kind: 'text',
    default: '',
    allowed: '`test`',
    meaning:
      'Set by the test runner (`scripts/test.mjs`): a server process then names itself in an `x-served-by` header and may read `IMAGEBOARD_TEST_CLOCK_FILE`',
  },
  {
    name: 'IMAGEBOARD_TEST_CLOCK_FILE',
    group: 'internal',
    kind: 'text',
    default: '',
    allowed: 'a path',
    meaning: 'With `NODE_ENV=test` only: a file holding the time (epoch ms) the clock reads, moved by the tests that run real server processes',
  },
] as const satisfies readonly Setting[];

export type SettingEntry = (typeof SETTINGS)[number];
export type SettingName = SettingEntry['name'];
/** The names of the settings read as `kind`. */
export type NameOf<K extends Setting['kind']> = Extract<SettingEntry, { kind: K }>['name'];
export type EntryOf<N extends SettingName> = Extract<SettingEntry, { name: N }>;

const BY_NAME = new Map<string, SettingEntry>(SETTINGS.map((s) => [s.name, s]));

/** The entry of a setting: its default, range or values for a reader outside config.ts. */
export function settingOf<N extends SettingName>(name: N): EntryOf<N> {
  return BY_NAME.get(name) as EntryOf<N>;
}
