import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { startServer, type Child } from './server.ts';
import { assertLoopback } from './load.ts';
import { latencyStats, makePngs, signIn } from './uploads.ts';
import { namedCpuSeconds, treeCpuSeconds } from './rss.ts';
import { whole } from './run.ts';

/**
 * Issue 24, point 5: do uploads scale across instances on one PostgreSQL? Starts `instances`
 * servers (one process each, one database, one shared media folder), and from each of
 * `perInstance` loops uploads distinct small PNGs with tags drawn from a small common set (so
 * popular tags' rows are written by every upload, as on a real board) for `seconds`. Run once with
 * one instance and once with several; reports uploads/s, latency, the CPU seconds an upload costs
 * the servers and PostgreSQL, and how often PostgreSQL's backends were seen waiting for a lock
 * (pg_stat_activity sampled every 20 ms), with what they waited on. On a 2-core machine the CPU
 * bounds both runs: the lock waits say whether writes queue on shared rows.
 */

interface Options {
  databaseUrl: string;
  instances: number[];
  perInstance: number;
  seconds: number;
  tagsPerUpload: number;
}

interface Phase {
  instances: number;
  uploads: number;
  errors: number;
  seconds: number;
  uploadsPerSecond: number;
  latencyMs: { p50: number; p99: number; max: number };
  serverCpuMsPerUpload: number | null;
  postgresCpuMsPerUpload: number | null;
  /** Of the samples of backends busy in our database, the share waiting on a lock. */
  lockWaitShare: number;
  /** What those waits were on (pg_locks locktype and relation), most seen first. */
  waitsOn: Record<string, number>;
}

const TAG_POOL = Array.from({ length: 20 }, (_, i) => `fleet_tag_${i}`);

async function phase(o: Options, adminUrl: string, instances: number, pngs: Buffer[]): Promise<Phase> {
  const dbName = `ib_fleet_${process.pid}_${instances}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName}`);
  await admin.query(`CREATE DATABASE ${dbName}`);
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-fleet-'));
  const servers: Child[] = [];
  try {
    // The first migrates; the others start on a migrated database.
    for (let i = 0; i < instances; i++) servers.push(await startServer({ dataDir, databaseUrl: url.toString(), workers: 1 }));
    for (const s of servers) assertLoopback(s.origin);
    const cookies = await Promise.all(
      servers.map((s, i) => signIn(s.origin, '/api/auth/register', { username: `fleet_${instances}_${i}`, password: 'fleet-bench-password' })),
    );
    const cpu = () => servers.reduce((n, s) => n + (treeCpuSeconds(s.pid) ?? 0), 0);
    const cpu0 = cpu();
    const pg0 = namedCpuSeconds('postgres');
    // Sampled from a connection to the board's database, so that relations are named.
    const watcher = new pg.Client({ connectionString: url.toString() });
    await watcher.connect();
    const waits: Record<string, number> = {};
    let busy = 0;
    let waiting = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rows = (
          await watcher.query<{ wait: string | null; on: string | null }>(
            `SELECT a.wait_event_type AS wait, (SELECT l.locktype || coalesce(' ' || l.relation::regclass::text, '') FROM pg_locks l WHERE l.pid = a.pid AND NOT l.granted LIMIT 1) AS on
             FROM pg_stat_activity a WHERE a.datname = $1 AND a.state = 'active' AND a.pid <> pg_backend_pid()`,
            [dbName],
          )
        ).rows;
        busy += rows.length;
        for (const r of rows)
          if (r.wait === 'Lock') {
            waiting++;
            const key = r.on ?? 'lock';
            waits[key] = (waits[key] ?? 0) + 1;
          }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const latencies: number[] = [];
    let errors = 0;
    let next = 0;
    const until = Date.now() + o.seconds * 1000;
    const started = performance.now();
    const loop = async (s: Child, cookie: string, seed: number) => {
      for (let k = 0; Date.now() < until && next < pngs.length; k++) {
        const png = pngs[next++];
        const form = new FormData();
        form.append('title', `fleet upload ${seed}-${k}`);
        const tags = Array.from({ length: o.tagsPerUpload }, (_, j) => TAG_POOL[(seed + k + j * 7) % TAG_POOL.length]);
        form.append('tags', [...new Set(tags)].join(','));
        form.append('file', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'fleet.png');
        const t = performance.now();
        const res = await fetch(`${s.origin}/api/upload`, { method: 'POST', headers: { cookie }, body: form, signal: AbortSignal.timeout(60_000) }).catch(
          () => null,
        );
        await res?.arrayBuffer().catch(() => undefined);
        latencies.push(performance.now() - t);
        if (res?.status !== 201) errors++;
      }
    };
    await Promise.all(servers.flatMap((s, i) => Array.from({ length: o.perInstance }, (_, j) => loop(s, cookies[i], i * o.perInstance + j))));
    const seconds = (performance.now() - started) / 1000;
    sampling = false;
    await sampler;
    await watcher.end();
    const ok = latencies.length - errors;
    const pg1 = namedCpuSeconds('postgres');
    return {
      instances,
      uploads: ok,
      errors,
      seconds,
      uploadsPerSecond: ok / seconds,
      latencyMs: latencyStats(latencies),
      serverCpuMsPerUpload: ok ? ((cpu() - cpu0) * 1000) / ok : null,
      postgresCpuMsPerUpload: ok && pg0 !== null && pg1 !== null ? ((pg1 - pg0) * 1000) / ok : null,
      lockWaitShare: busy ? waiting / busy : 0,
      waitsOn: Object.fromEntries(Object.entries(waits).sort((a, b) => b[1] - a[1])),
    };
  } finally {
    for (const s of servers) await s.stop();
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export function fleetMarkdown(phases: Phase[], o: Options): string {
  const rows = phases.map(
    (p) =>
      `| ${p.instances} x ${o.perInstance} | ${p.uploads} | ${p.errors} | ${p.uploadsPerSecond.toFixed(1)} | ${p.latencyMs.p50.toFixed(0)} | ${p.latencyMs.p99.toFixed(0)} | ` +
      `${p.serverCpuMsPerUpload?.toFixed(1) ?? '-'} | ${p.postgresCpuMsPerUpload?.toFixed(1) ?? '-'} | ${(100 * p.lockWaitShare).toFixed(1)}% | ${Object.entries(
        p.waitsOn,
      )
        .slice(0, 3)
        .map(([k, v]) => `${k} (${v})`)
        .join(', ')} |`,
  );
  return [
    `Machine: ${os.availableParallelism()} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), Node ${process.version}; ${o.seconds} s a run, ${o.tagsPerUpload} tags an upload from ${TAG_POOL.length}.`,
    '',
    '| Instances x uploads at once | Uploads | Errors | Uploads/s | p50 ms | p99 ms | Server CPU ms/upload | PostgreSQL CPU ms/upload | Backends waiting on a lock | On |',
    '|---|--:|--:|--:|--:|--:|--:|--:|--:|---|',
    ...rows,
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      instances: { type: 'string' },
      'per-instance': { type: 'string' },
      seconds: { type: 'string' },
      tags: { type: 'string' },
    },
  });
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!databaseUrl) throw new Error('set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server on loopback');
  const o: Options = {
    databaseUrl,
    instances: (values.instances ?? '1,4').split(',').map((n) => whole('instances', n, 1, 8)!),
    perInstance: whole('per-instance', values['per-instance'], 1, 64) ?? 16,
    seconds: whole('seconds', values.seconds, 5, 300) ?? 30,
    tagsPerUpload: whole('tags', values.tags, 0, 20) ?? 8,
  };
  const host = new URL(databaseUrl).hostname;
  if (!['127.0.0.1', 'localhost', '::1', '[::1]'].includes(host)) throw new Error(`the database must be on loopback, not ${host}`);
  const pngs = await makePngs(6000);
  const phases: Phase[] = [];
  for (const n of o.instances) {
    const p = await phase(o, databaseUrl, n, pngs.splice(0, 3000));
    console.log(
      `${n} instance(s): ${p.uploads} uploads, ${p.uploadsPerSecond.toFixed(1)}/s, p99 ${p.latencyMs.p99.toFixed(0)} ms, lock waits ${(100 * p.lockWaitShare).toFixed(1)}%`,
    );
    phases.push(p);
  }
  console.log(fleetMarkdown(phases, o));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
