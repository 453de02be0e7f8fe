import type { Config } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import path from 'node:path';
import { systemClock, type Deps } from './deps.ts';
import { LocalMediaStore } from '../storage/local.ts';

/** Deps for a command-line tool: the configured database, the system clock. Close when done. */
export async function openDeps(config: Config): Promise<Deps & { close(): Promise<void> }> {
  const database = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  return { db: database.db, dialect: database.dialect, config, clock: systemClock, media: new LocalMediaStore(path.join(config.dataDir, 'media')), startedAt: Date.now(), close: () => database.close() };
}
