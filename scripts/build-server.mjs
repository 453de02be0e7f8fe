#!/usr/bin/env node
// Compiles the server (src/server.ts and what it imports) into dist/ with esbuild: part of
// `npm run build` (which npm install and npm ci run), and the first step of the benchmark and of the
// tests that start a server. Running plain JavaScript spares each process the
// TypeScript loader (tsx keeps an esbuild service and source maps in every worker: ~70 MB each).
// npm packages stay external; dynamic imports become chunks, so the WORKERS supervisor still
// loads only the migration code. Takes well under a second, so it always rebuilds. Files are
// written beside dist/ and renamed in (chunks first, the entry last), so a server starting
// meanwhile, or a second build at the same time, never sees half a build.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SERVER_ENTRY = path.join(ROOT, 'dist', 'server.js');

export async function buildServer() {
  const out = path.join(ROOT, 'dist');
  const staging = path.join(ROOT, `.dist-${process.pid}-${Date.now()}`);
  fs.mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [path.join(ROOT, 'src', 'server.ts')],
    outdir: staging,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  const built = fs.readdirSync(staging).sort((a, b) => Number(a.startsWith('server.')) - Number(b.startsWith('server.')));
  for (const f of built) fs.renameSync(path.join(staging, f), path.join(out, f));
  fs.rmSync(staging, { recursive: true, force: true });
  // Chunks of earlier builds (their names carry a content hash) are no longer referenced.
  for (const f of fs.readdirSync(out)) if (!built.includes(f)) fs.rmSync(path.join(out, f), { force: true });
  return SERVER_ENTRY;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildServer();
}
