import { ConfigError } from '../config.ts';
import { registerBuiltInJobKinds } from '../job-kinds.ts';
import { NoDatabase } from '../core/deps-open.ts';
import { USER_USAGE } from './user.ts';
import { MEDIA_USAGE } from './media.ts';
import { JOBS_USAGE } from './jobs.ts';
import { TAGS_USAGE } from './tags.ts';
import { MIGRATE_USAGE } from './migrate.ts';
import { BACKUP_USAGE } from './backup.ts';
import { EXPORT_USAGE } from './export.ts';
import { IMPORT_USAGE } from './import.ts';

const USAGE = `Usage: imageboard <command> [options]

Commands:
  seed --posts N [--seed S] [--users N] [--tags N] [--tags-per-post N] [--until ISO-DATE] [--no-media]
        Fill the database (DATABASE_URL, or SQLite under DATA_DIR) with synthetic data.
${MIGRATE_USAGE}${USER_USAGE}${MEDIA_USAGE}${JOBS_USAGE}${TAGS_USAGE}${BACKUP_USAGE}${EXPORT_USAGE}${IMPORT_USAGE}`;

type Command = (args: string[]) => Promise<number>;

const COMMANDS: Record<string, () => Promise<Command>> = {
  migrate: async () => (await import('./migrate.ts')).migrateCommand,
  backup: async () => (await import('./backup.ts')).backupCommand,
  restore: async () => (await import('./backup.ts')).restoreCommand,
  media: async () => (await import('./media.ts')).mediaCommand,
  user: async () => (await import('./user.ts')).userCommand,
  seed: async () => (await import('./seed.ts')).seedCommand,
  jobs: async () => (await import('./jobs.ts')).jobsCommand,
  tags: async () => (await import('./tags.ts')).tagsCommand,
  export: async () => (await import('./export.ts')).exportCommand,
  import: async () => (await import('./import.ts')).importCommand,
};

/** Runs one command; returns the process exit code. */
export async function main(argv: string[]): Promise<number> {
  registerBuiltInJobKinds();
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(USAGE);
    return name ? 0 : 1;
  }
  const load = COMMANDS[name];
  if (!load) {
    process.stderr.write(`Unknown command '${name}'.\n\n${USAGE}`);
    return 1;
  }
  try {
    return await (await load())(rest);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof NoDatabase || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`${(err as Error).message}\n`);
      return 2;
    }
    throw err;
  }
}
