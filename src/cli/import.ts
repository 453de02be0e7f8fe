import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig, tmpDirOf } from '../config.ts';
import { openDeps } from '../core/deps-open.ts';
import { RATINGS, type Rating } from '../core/schemas.ts';
import { danbooruSource } from '../modules/imports/danbooru-source.ts';
import { exportSource, isExportDir } from '../modules/imports/export-source.ts';
import { folderSource } from '../modules/imports/folder-source.ts';
import { type ImportSource, SourceError } from '../modules/imports/import-item.ts';
import { type ImportSummary, type ReportLine, runImport } from '../modules/imports/import-run.ts';
import { importUser, UnknownUser } from '../modules/imports/import-user.ts';
import { recoverInterrupted } from '../modules/uploads/recover.ts';
import { progressPrinter } from './progress.ts';
import type { CommandIo } from './seed.ts';

export const IMPORT_USAGE = `  import folder DIR [options]
        Bring in the media files under DIR with their metadata: gallery-dl's --write-metadata
        sidecars (Danbooru, e621, Moebooru, Gelbooru, szurubooru), .txt tag lists, or an export of
        this board (docs/import.md).
  import danbooru URL [--tags QUERY] [--login NAME --api-key KEY] [--in-flight N] [options]
        Bring in the posts of a board speaking Danbooru's API (Danbooru, its forks, this board),
        all or those QUERY finds, with their comments, tags' categories, aliases, implications
        and pools. --in-flight: requests at once (default 4).
    options: --as USER (who owns what comes in; default the account 'import'), --rating R (for
        posts whose source gives none: safe, sketchy or unsafe; default sketchy), --dry-run (check
        everything, write nothing), --report FILE (one JSON line a post not simply imported;
        default import-<time>.jsonl here), --concurrency N (posts stored at once, default 2),
        --no-md5-check (take files whose md5 is not the one their metadata gives).
        A second run adds nothing; a run stopped at any point goes on where it stopped. The
        import runs at a lower CPU priority than the board (IMPORT_NICE, default 10; 0: the same).
`;

const STD_IO: CommandIo = { env: process.env, out: process.stdout, err: process.stderr };
const count = (n: number) => n.toLocaleString('en');

class Usage extends Error {}

const positive = (raw: string | undefined, name: string, fallback: number) => {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new Usage(`--${name} takes a whole number from 1 to 64, not '${raw}'`);
  return n;
};

/**
 * An import runs beside the board it fills, and its decoding would take the cores from the
 * server's requests: every thread of the process gets a lower CPU priority (on Linux niceness is
 * each thread's, and threads started later, sharp's among them, inherit their starter's).
 */
function yieldToServer(level: number): void {
  let threads: number[];
  try {
    threads = fs.readdirSync('/proc/self/task').map(Number);
  } catch {
    threads = [0]; // elsewhere the priority is the process's
  }
  for (const tid of threads) {
    try {
      if (os.getPriority(tid) < level) os.setPriority(tid, level);
    } catch {
      // a thread that ended meanwhile, or a system that refuses: the import runs as it is
    }
  }
}

function defaultReport(now: Date): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return path.resolve(`import-${stamp}.jsonl`);
}

/** The sentence that ends an import. */
export function summaryOf(s: ImportSummary, dryRun: boolean): string {
  const verb = dryRun ? 'Would import' : 'Imported';
  const rate = count(Math.round((s.imported + s.matched) / Math.max(s.seconds, 0.001)));
  const b = s.board;
  return (
    `${verb} ${count(s.imported)} posts; ${count(s.matched)} already here (tags merged), ${count(s.skipped)} imported before, ` +
    `${count(s.failed)} failed, ${count(s.unreadable)} unreadable, of ${count(s.read)} read. ` +
    `Tags described ${count(b.tags)}, aliases ${count(b.aliases)}, implications ${count(b.implications)}, parents ${count(b.parents)}, pools ${count(b.pools)}. ` +
    `${s.seconds.toFixed(1)} s (${rate} posts/s).\n`
  );
}

/**
 * `imageboard import folder DIR | danbooru URL`: 0 when every post came in (or was here already),
 * 1 when some failed or could not be read (the report says which and why), 2 on bad usage or a
 * source that cannot be read at all.
 */
export async function importCommand(args: string[], io: CommandIo = STD_IO): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      tags: { type: 'string' },
      login: { type: 'string' },
      'api-key': { type: 'string' },
      'in-flight': { type: 'string' },
      'no-md5-check': { type: 'boolean', default: false },
      as: { type: 'string' },
      rating: { type: 'string' },
      'dry-run': { type: 'boolean', default: false },
      report: { type: 'string' },
      concurrency: { type: 'string' },
    },
  });
  const [kind, where] = positionals;
  let concurrency: number;
  let inFlight: number;
  try {
    if (positionals.length !== 2 || (kind !== 'folder' && kind !== 'danbooru')) throw new Usage('');
    if (kind === 'folder' && (values.tags || values.login || values['api-key'] || values['in-flight']))
      throw new Usage('--tags, --login, --api-key and --in-flight are for import danbooru');
    if (Boolean(values.login) !== Boolean(values['api-key'])) throw new Usage('--login and --api-key go together');
    if (values.rating !== undefined && !RATINGS.includes(values.rating as Rating))
      throw new Usage(`--rating is one of ${RATINGS.join(', ')}, not '${values.rating}'`);
    concurrency = positive(values.concurrency, 'concurrency', 2);
    inFlight = positive(values['in-flight'], 'in-flight', 4);
  } catch (err) {
    if (!(err instanceof Usage)) throw err;
    io.err.write(`${err.message ? `${err.message}\n` : ''}Usage:\n${IMPORT_USAGE}`);
    return 2;
  }
  const dryRun = values['dry-run'];
  const config = loadConfig(io.env);
  // Only as a command of its own: tests call this function inside their own process.
  if (io === STD_IO) yieldToServer(config.importNice);
  if (kind === 'folder' && !fs.statSync(where, { throwIfNoEntry: false })?.isDirectory()) {
    io.err.write(`${where} is not a folder\n`);
    return 2;
  }
  const reportPath = path.resolve(values.report ?? defaultReport(new Date()));
  // Bringing a board in is often the first thing done with a new one: the database is made if missing.
  const deps = await openDeps(config, { err: io.err, create: !dryRun });
  let report: fs.WriteStream | null = null;
  const progress = progressPrinter(io.err, 'import');
  try {
    const user = await importUser(deps, values.as ?? null, dryRun);
    if (!dryRun) await recoverInterrupted(deps);
    const tmpDir = tmpDirOf(config);
    fs.mkdirSync(tmpDir, { recursive: true });
    let source: ImportSource;
    if (kind === 'danbooru') {
      source = danbooruSource({
        url: where,
        tags: values.tags,
        login: values.login,
        apiKey: values['api-key'],
        inFlight,
        tmpDir,
        verifyMd5: !values['no-md5-check'],
      });
    } else {
      source = (await isExportDir(where)) ? exportSource(where) : folderSource(where);
    }
    const total = await source.total();
    progress('posts', 0, total);
    report = fs.createWriteStream(reportPath);
    const stream = report;
    const lines = { n: 0 };
    const summary = await runImport(deps, source, {
      user,
      defaultRating: (values.rating as Rating | undefined) ?? 'sketchy',
      dryRun,
      verifyMd5: !values['no-md5-check'],
      concurrency,
      report: (line: ReportLine) => {
        lines.n++;
        stream.write(`${JSON.stringify(line)}\n`);
      },
      progress: (done) => progress('posts', done, total === null ? null : Math.max(total, done)),
    });
    progress.end();
    await new Promise<void>((resolve, reject) => stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
    io.out.write(summaryOf(summary, dryRun));
    io.out.write(`Report: ${reportPath} (${count(lines.n)} lines)\n`);
    return summary.failed + summary.unreadable + summary.board.problems.length > 0 ? 1 : 0;
  } catch (err) {
    progress.end();
    if (err instanceof UnknownUser || err instanceof SourceError) {
      io.err.write(`import ${kind}: ${err.message}\n`);
      return 2;
    }
    throw err;
  } finally {
    report?.end();
    await deps.close();
  }
}
