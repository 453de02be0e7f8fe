import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { NoDatabase } from '../core/deps-open.ts';
import { databaseExists, databaseLabel } from '../db/database.ts';
import { BackupError } from '../modules/backup/backup-format.ts';
import { createBackup } from '../modules/backup/backup.service.ts';
import { MediaProblems, restoreBackup } from '../modules/backup/restore.service.ts';
import { progressPrinter } from './progress.ts';
import type { CommandIo } from './seed.ts';

export const BACKUP_USAGE = `  backup DIR
        Copy a live SQLite board (DATA_DIR) into the new folder DIR: its database as it stood at one
        instant, and media.tsv, every media file it refers to with its size and sha256. Safe while
        the server takes uploads. Copy DATA_DIR/media beside it afterwards (docs/deploy.md).
  restore DIR [--media-from MEDIA_DIR] [--allow-missing]
        Restore the backup folder DIR into a DATA_DIR without a board; --media-from copies the listed
        media files from MEDIA_DIR (the copy of the old DATA_DIR/media). Checks first that the backup
        is whole and every listed file is there, and writes nothing otherwise; each file's sha256 is
        checked as it is copied. --allow-missing restores without files found nowhere.
`;

const STD_IO: CommandIo = { env: process.env, out: process.stdout, err: process.stderr };

/** Backups here are of SQLite boards; a PostgreSQL board has its own tools. */
function sqliteOnly(config: Config, command: string, io: CommandIo): boolean {
  if (!config.databaseUrl) return true;
  io.err.write(
    `imageboard ${command} works on SQLite boards (DATA_DIR), and DATABASE_URL names a PostgreSQL database.\n` +
      "Back that up with PostgreSQL's tools: pg_dump --format=custom (restore with pg_restore), and copy DATA_DIR/media alongside. See docs/deploy.md.\n",
  );
  return false;
}

/** `imageboard backup DIR`: 0 when written; 1 when written but some referred-to media were missing. */
export async function backupCommand(args: string[], io: CommandIo = STD_IO): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  if (positionals.length !== 1) {
    io.err.write(`Usage:\n${BACKUP_USAGE}`);
    return 2;
  }
  const config = loadConfig(io.env);
  if (!sqliteOnly(config, 'backup', io)) return 2;
  const where = { url: '', dataDir: config.dataDir };
  io.err.write(`Using database: ${databaseLabel(where)}\n`);
  if (!(await databaseExists(where)))
    throw new NoDatabase(`There is no board in ${databaseLabel(where)} to back up: set DATA_DIR to the folder holding imageboard.db.`);
  const progress = progressPrinter(io.err, 'backup');
  try {
    const m = await createBackup(config, positionals[0], (done, total) => progress('hashing', done, total));
    progress.end();
    io.out.write(
      `Backup written to ${positionals[0]}: ${m.posts} posts; ${m.mediaFiles} media files (${m.mediaBytes.toLocaleString('en')} bytes) listed in media.tsv.\n` +
        `Copy DATA_DIR/media alongside it (docs/deploy.md, Backups and restore).\n`,
    );
    if (m.missingMedia.length === 0) return 0;
    io.out.write(
      `warning: ${m.missingMedia.length} media file(s) the database refers to were missing (deleted while the backup ran, or already gone): ${m.missingMedia.slice(0, 10).join(', ')}\n`,
    );
    return 1;
  } catch (err) {
    if (!(err instanceof BackupError)) throw err;
    io.err.write(`${err.message}\n`);
    return 2;
  }
}

/**
 * `imageboard restore DIR [--media-from MEDIA_DIR] [--allow-missing]`: 0 when restored; 1 when
 * media files are missing or different, 2 when the backup or DATA_DIR will not do, 130 when
 * interrupted. Anything but 0 leaves DATA_DIR as it was.
 */
export async function restoreCommand(args: string[], io: CommandIo = STD_IO): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { 'media-from': { type: 'string' }, 'allow-missing': { type: 'boolean', default: false } },
  });
  if (positionals.length !== 1) {
    io.err.write(`Usage:\n${BACKUP_USAGE}`);
    return 2;
  }
  const config = loadConfig(io.env);
  if (!sqliteOnly(config, 'restore', io)) return 2;
  io.err.write(`Restoring into: ${databaseLabel({ url: '', dataDir: config.dataDir })}\n`);
  const mediaFrom = values['media-from'] ?? null;
  const progress = progressPrinter(io.err, 'restore');
  // Ctrl-C or a TERM mid-way: what was written is taken back before the command exits.
  const stop = new AbortController();
  const interrupt = () => stop.abort();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    const r = await restoreBackup(config, positionals[0], { mediaFrom, allowMissing: values['allow-missing'] }, progress, stop.signal);
    progress.end();
    io.out.write(`Restored the database into ${config.dataDir}.\n`);
    if (r.mediaInBucket) {
      io.out.write(`MEDIA_STORE=s3: the ${r.mediaFiles} listed media files are the bucket's; check them with \`imageboard media check\`.\n`);
      return 0;
    }
    io.out.write(`media files listed: ${r.mediaFiles}; copied: ${r.copied}; already in place: ${r.inPlace}; missing: ${r.missing.length}\n`);
    if (r.missing.length === 0) {
      io.out.write('all media in place\n');
      return 0;
    }
    io.out.write(
      `restored without (--allow-missing): ${r.missing.slice(0, 10).join(', ')}${r.missing.length > 10 ? ', ...' : ''}\n` +
        'Run `imageboard media check --fix`: it deletes the posts whose original is missing and makes missing thumbnails again.\n',
    );
    return 0;
  } catch (err) {
    progress.end();
    if (stop.signal.aborted) {
      io.err.write(`Interrupted: nothing was restored; ${config.dataDir} is as it was.\n`);
      return 130;
    }
    if (!(err instanceof BackupError)) throw err;
    io.err.write(`${err.message}\n`);
    return err instanceof MediaProblems ? 1 : 2;
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
  }
}
