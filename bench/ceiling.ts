import cluster from 'node:cluster';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort, spawnNode, waitUntil, type Child } from './server.ts';

/**
 * The ceiling: a bare node:http server, run with as many processes as the server under test
 * (node:cluster), answering precomputed JSON bodies of the sizes our server's responses had.
 * GET /<scenario>/<i> answers body i of that scenario. What this reaches is as fast as Node
 * serves those bytes on this machine, whatever the application does.
 */

export type Sizes = Record<string, number[]>;

const HERE = fileURLToPath(import.meta.url);

/** A JSON body of exactly `size` bytes (at least 2). */
export function bodyOfSize(size: number, seed: number): Buffer {
  const n = Math.max(2, size);
  if (n < 12) return Buffer.from(`${'"'.padEnd(n - 1, 'x')}"`);
  const head = `{"n":${seed % 10},"pad":"`;
  const fill = n - head.length - 2;
  if (fill < 0) return Buffer.from(`${'"'.padEnd(n - 1, 'x')}"`);
  return Buffer.from(`${head + 'x'.repeat(fill)}"}`);
}

function serveBodies(sizes: Sizes, port: number): void {
  const bodies = new Map<string, Buffer[]>();
  for (const [name, list] of Object.entries(sizes))
    bodies.set(
      name,
      list.map((s, i) => bodyOfSize(s, i)),
    );
  const notFound = Buffer.from('{"error":"Not found","status":404}');
  const server = http.createServer((req, res) => {
    const [, name = '', index = ''] = (req.url ?? '').split('/');
    const list = bodies.get(name);
    const body = list?.[Number(index) % list.length];
    res.statusCode = body ? 200 : 404;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', (body ?? notFound).length);
    res.end(body ?? notFound);
  });
  server.keepAliveTimeout = 72_000;
  server.listen(port, '127.0.0.1');
}

function main(): void {
  const [portText, workersText, sizesFile] = process.argv.slice(2);
  const port = Number(portText);
  const workers = Math.max(1, Number(workersText) || 1);
  const sizes = JSON.parse(fs.readFileSync(sizesFile, 'utf8')) as Sizes;
  if (workers === 1) {
    serveBodies(sizes, port);
    return;
  }
  if (cluster.isPrimary) {
    for (let i = 0; i < workers; i++) cluster.fork();
    const stop = () => {
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      setTimeout(() => process.exit(0), 2000).unref();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    cluster.on('exit', () => {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
    });
  } else {
    serveBodies(sizes, port);
  }
}

/** Starts the ceiling server as a child process; the sizes go through a temporary file. */
export async function startCeiling(sizes: Sizes, workers: number): Promise<Child> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-ceiling-'));
  const file = path.join(dir, 'sizes.json');
  fs.writeFileSync(file, JSON.stringify(sizes));
  const child = spawnNode(HERE, [String(port), String(workers), file], {}, port);
  const probe = Object.entries(sizes).find(([, list]) => list.length > 0)?.[0] ?? 'none';
  await waitUntil(child, 'the ceiling server', async () => {
    const res = await fetch(`${child.origin}/${probe}/0`, { signal: AbortSignal.timeout(2000) });
    await res.arrayBuffer();
    return res.ok;
  });
  if (workers > 1) await new Promise((r) => setTimeout(r, 500));
  const stop = child.stop;
  child.stop = async () => {
    await stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  return child;
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) main();
