// A PostgreSQL cluster of a test's own (initdb, pg_ctl) on a free port, which the test may stop
// and start as an operator's restart does, without touching the machine's shared server.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './server-process.ts';

const run = promisify(execFile);

export interface PgCluster {
  url: string;
  /** `pg_ctl stop -m fast`: every session is ended ("terminating connection due to administrator command"), as in a restart. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops it (if running) and removes its files. */
  destroy(): Promise<void>;
}

/** The folder of PostgreSQL's server programs (Debian: /usr/lib/postgresql/<version>/bin), or null. */
function serverBin(): string | null {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => path.join(root, v, 'bin')).find((bin) => fs.existsSync(path.join(bin, 'initdb')));
  return found ?? null;
}

/** Why a cluster cannot be made here, or null when it can. */
export function pgClusterMissing(): string | null {
  if (!serverBin()) return "PostgreSQL's server programs (initdb, pg_ctl) are not installed (Debian package postgresql)";
  if (process.getuid?.() === 0 && !fs.existsSync('/usr/sbin/runuser')) return 'running as root without runuser to start PostgreSQL as its own user';
  return null;
}

/**
 * Makes a cluster in a temporary folder and starts it on a free loopback port (trust
 * authentication, user postgres, database postgres). PostgreSQL refuses to run as root: as root,
 * its files belong to the postgres user and its programs run as that user.
 */
export async function startPgCluster(): Promise<PgCluster> {
  const bin = serverBin();
  if (!bin) throw new Error(pgClusterMissing()!);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-pg-'));
  const data = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    fs.chownSync(dir, Number(stdout.trim()), Number((await run('id', ['-g', 'postgres'])).stdout.trim()));
  }
  const pg = (program: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, program), ...args]) : run(path.join(bin, program), args);
  const port = await freePort();
  await pg('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = async () => void (await pg('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']));
  const stop = async () => void (await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']));
  await start();
  let running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await stop();
      running = false;
    },
    start: async () => {
      await start();
      running = true;
    },
    destroy: async () => {
      if (running) await stop().catch(() => {});
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
