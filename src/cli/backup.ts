import { parseArgs } from 'node:util';
import { loadConfig, type Config } from '../config.ts';
import { NoDatabase } from '../core/deps-open.ts';
import { databaseExists, databaseLabel } from '../db/database.ts';
import { BackupError } from '../modules/backup/backup-format.ts';
import { createBackup } from '../modules/backup/backup.service.ts';
import { restoreBackup } from '../modules/backup/restore.service.ts';
import type { CommandIo } from './seed.ts';

export const BACKUP_USAGE = `  backup FILE
        Copy a live SQLite board (DATA_DIR) into the new folder FILE: its database as it stood at one
        instant, and media.tsv, every media file it refers to with its size and sha256. Safe while
        the server takes uploads. Media files are copied separately (docs/deploy.md).
  restore FILE [--media-from DIR]
        Restore a backup into a DATA_DIR without a board; --media-from copies the listed media files
        from DIR (a copy of the old DATA_DIR/media). Checks every listed file's size and sha256.
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

const progress = (io: CommandIo, what: string) => (done: number, total: number) =>
  io.err.write(`\r${what}: ${done.toLocaleString('en')} of ${total.toLocaleString('en')}${done === total ? '\n' : ''}`);

/** `imageboard backup FILE`: 0 when written; 1 when written but some referred-to media were missing. */
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
  try {
    const m = await createBackup(config, positionals[0], progress(io, 'hashing media'));
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

/** `imageboard restore FILE [--media-from DIR]`: 0 when the board and every listed media file are in place. */
export async function restoreCommand(args: string[], io: CommandIo = STD_IO): Promise<number> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { 'media-from': { type: 'string' } } });
  if (positionals.length !== 1) {
    io.err.write(`Usage:\n${BACKUP_USAGE}`);
    return 2;
  }
  const config = loadConfig(io.env);
  if (!sqliteOnly(config, 'restore', io)) return 2;
  io.err.write(`Restoring into: ${databaseLabel({ url: '', dataDir: config.dataDir })}\n`);
  try {
    const r = await restoreBackup(config, positionals[0], values['media-from'] ?? null, (step, done, total) => progress(io, step)(done, total));
    io.out.write(
      `Restored the database into ${config.dataDir}.\n` +
        `media files listed: ${r.mediaFiles}; copied: ${r.copied}; missing: ${r.missing.length}; different from the backup: ${r.different.length}\n`,
    );
    const problems = [...r.missing, ...r.different];
    if (problems.length === 0) {
      io.out.write('all media in place\n');
      return 0;
    }
    io.out.write(`${problems.slice(0, 10).join(', ')}\nCopy these into DATA_DIR/media, then run \`imageboard media check\`.\n`);
    return 1;
  } catch (err) {
    if (!(err instanceof BackupError)) throw err;
    io.err.write(`${err.message}\n`);
    return 2;
  }
}
