import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { databaseFiles, type Dataset } from './dataset.ts';

/**
 * Reads the dataset's database through the OS's page cache before a scenario, as a server that
 * has served its board for a while finds it. The machines here page out file pages nobody read
 * for a while (a `kdamond` thread), so after a quarter of an hour of other scenarios a
 * scenario that reads rows from all over the posts table (danbooru-posts: 200 a page) read them
 * from disk, and measured the disk (docs/benchmarks.md, "File cache"). Nothing of it is in the
 * server's RSS: the pages are the kernel's, not mapped by the server. Bounded in time; returns
 * the bytes read and the seconds taken.
 */
export async function warmFileCache(d: Dataset, adminUrl: string, maxSeconds = 60): Promise<{ bytes: number; seconds: number }> {
  const started = performance.now();
  const deadline = started + maxSeconds * 1000;
  const bytes =
    d.kind === 'sqlite'
      ? readFiles(
          databaseFiles(d.dataDir).map((f) => path.join(d.dataDir, f)),
          deadline,
        )
      : await prewarmSchema(adminUrl, d.schema!, deadline);
  return { bytes, seconds: (performance.now() - started) / 1000 };
}

const CHUNK = 4 * 1024 * 1024;

/** Reads the files from start to end (or until the deadline); the bytes read. */
function readFiles(files: string[], deadline: number): number {
  const buffer = Buffer.allocUnsafe(CHUNK);
  let total = 0;
  for (const file of files) {
    const fd = fs.openSync(file, 'r');
    try {
      for (let at = 0, n = 1; n > 0 && performance.now() < deadline; at += n) {
        n = fs.readSync(fd, buffer, 0, CHUNK, at);
        total += n;
      }
    } finally {
      fs.closeSync(fd);
    }
  }
  return total;
}

/**
 * PostgreSQL: pg_prewarm's 'read' mode reads each table and index of the schema into the OS's
 * cache (shared_buffers are far smaller than a million posts). Without the extension, nothing.
 */
async function prewarmSchema(adminUrl: string, schema: string, deadline: number): Promise<number> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_prewarm');
    const { rows } = await admin.query<{ oid: number; bytes: string }>(
      `select c.oid, pg_relation_size(c.oid)::bigint as bytes from pg_class c
       join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind in ('r', 'i', 'm')
       order by 2 desc`,
      [schema],
    );
    let total = 0;
    for (const r of rows) {
      if (performance.now() >= deadline) break;
      await admin.query(`SELECT pg_prewarm($1::oid::regclass, 'read')`, [r.oid]);
      total += Number(r.bytes);
    }
    return total;
  } catch (err) {
    if (/pg_prewarm/.test((err as Error).message)) return 0;
    throw err;
  } finally {
    await admin.end();
  }
}
