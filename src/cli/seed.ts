import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { databaseLabel, databasePlace, openDatabase } from '../db/database.ts';
import { SeedRefused, seedDatabase, type SeedOptions, type SeedSummary } from '../seed/generate.ts';
import { SEED_ADMIN, SEED_PASSWORD } from '../seed/users.ts';
import { progressPrinter } from './progress.ts';

const USAGE = 'Usage: imageboard seed --posts N [--seed S] [--users N] [--tags N] [--tags-per-post N] [--until ISO-DATE] [--no-media]';

interface Output {
  write(text: string): unknown;
  /** Set on a terminal: progress is redrawn in place there, and printed as whole lines elsewhere. */
  isTTY?: boolean;
}

export interface CommandIo {
  env: Record<string, string | undefined>;
  out: Output;
  err: Output;
  /** Standard input (process.stdin unless a test gives another): a password is read from it. */
  in?: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?(mode: boolean): unknown };
}

class UsageError extends Error {}

function whole(args: Record<string, unknown>, name: string, min: number, max: number): number | undefined {
  const raw = args[name];
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min.toLocaleString('en')} to ${max.toLocaleString('en')} (got '${raw}')`);
  }
  return Number(raw);
}

function isoDate(raw: unknown): number | undefined {
  if (raw === undefined) return undefined;
  const text = String(raw);
  const ms = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw new UsageError(`--until must be an ISO date (2026-06-15) or date-time (2026-06-15T12:00:00Z) (got '${text}')`);
  return ms;
}

/** Turns the command line into seed options; throws UsageError (exit code 2) on anything wrong. */
export function parseSeedArgs(argv: string[], now: () => number, dataDir: string): SeedOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      posts: { type: 'string' },
      seed: { type: 'string' },
      users: { type: 'string' },
      tags: { type: 'string' },
      'tags-per-post': { type: 'string' },
      until: { type: 'string' },
      'no-media': { type: 'boolean' },
    },
  });
  if (values.posts === undefined) throw new UsageError('--posts N is required');
  return {
    posts: whole(values, 'posts', 1, 10_000_000)!,
    seed: whole(values, 'seed', 0, 2 ** 32 - 1),
    users: whole(values, 'users', 1, 1_000_000),
    tags: whole(values, 'tags', 1, 1_000_000),
    tagsPerPost: whole(values, 'tags-per-post', 0, 64),
    until: isoDate(values.until) ?? now(),
    mediaDir: values['no-media'] ? null : path.join(dataDir, 'media'),
  };
}

function describeSummary(s: SeedSummary, options: SeedOptions, where: string, seconds: number): string {
  const n = (v: number) => v.toLocaleString('en').padStart(12);
  const media = options.mediaDir
    ? `${n(s.mediaFiles)} originals (${(s.mediaBytes / 1e6).toFixed(1)} MB) with thumbnails, under ${options.mediaDir}`
    : `${n(0)} (--no-media: paths are filled, no files written)`;
  return [
    `Seeded ${where} in ${seconds.toFixed(1)} s (seed ${options.seed ?? 1}, until ${new Date(options.until).toISOString()}).`,
    `  users      ${n(s.users)}`,
    `  posts      ${n(s.posts)}`,
    `  tags       ${n(s.tags)}  (${s.postTags.toLocaleString('en')} post-tag links)`,
    `  likes      ${n(s.likes)}`,
    `  favorites  ${n(s.favorites)}`,
    `  comments   ${n(s.comments)}  (${s.replies.toLocaleString('en')} replies)`,
    `  pools      ${n(s.pools)}  (${s.poolPosts.toLocaleString('en')} pool entries)`,
    `  media      ${media}`,
    `Every seeded user's password is: ${SEED_PASSWORD}`,
    // Said on its own line: an admin whose password is printed here is a way into the board.
    `Made an admin account: sign in as '${SEED_ADMIN}' with the password ${SEED_PASSWORD}. On a board others can reach,`,
    `give it a password of its own first: imageboard user reset-password ${SEED_ADMIN} prints a link that sets one.`,
    '',
  ].join('\n');
}

/** `imageboard seed`: 0 when seeded, 1 when the database already has data, 2 on bad options. */
export async function seedCommand(args: string[], io: CommandIo = { env: process.env, out: process.stdout, err: process.stderr }): Promise<number> {
  const config = loadConfig(io.env);
  let options: SeedOptions;
  try {
    options = parseSeedArgs(args, () => Date.now(), config.dataDir);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    io.err.write(`${err.message}\n${USAGE}\n`);
    return 2;
  }
  const started = performance.now();
  const location = { url: config.databaseUrl, dataDir: config.dataDir };
  // Seeding fills a new board, so it may create the database; it still says which one.
  io.err.write(`Using database: ${databaseLabel(location)}\n`);
  const database = await openDatabase(location);
  const where = databasePlace(location);
  const progress = progressPrinter(io.err, 'seed', started);
  try {
    const summary = await seedDatabase(database, options, progress);
    io.out.write(describeSummary(summary, options, where, (performance.now() - started) / 1000));
    return 0;
  } catch (err) {
    if (!(err instanceof SeedRefused)) throw err;
    io.err.write(`Refusing to seed ${where}: ${err.message}\n`);
    return 1;
  } finally {
    progress.end();
    await database.close();
  }
}
