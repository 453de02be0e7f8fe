import type { Config } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { systemClock, type Deps } from './deps.ts';

/** Deps for a command-line tool: the configured database, the system clock. Close when done. */
export async function openDeps(config: Config): Promise<Deps & { close(): Promise<void> }> {
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  return { db: database.db, dialect: database.dialect, config, clock: systemClock, startedAt: Date.now(), close: () => database.close() };
}
