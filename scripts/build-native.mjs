#!/usr/bin/env node
// Compiles native/malloc-trim.c into native/build/malloc-trim.node: part of `npm run build`
// (which npm install and npm ci run). Linux with glibc only (malloc_trim is glibc's), with a C
// compiler (CC, else cc) and Node's headers (include/node beside the node binary, as Node's
// packages and installers put them). Without them it says so and the server runs without
// trimming; the build does not fail. Written beside its place and renamed in, like dist/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const MALLOC_TRIM_SOURCE = path.join(ROOT, 'native', 'malloc-trim.c');
export const MALLOC_TRIM_ADDON = path.join(ROOT, 'native', 'build', 'malloc-trim.node');

/** Why the addon cannot be built here, or null when it can. */
function unbuildable(headers) {
  if (process.platform !== 'linux') return `malloc_trim is glibc's; this is ${process.platform}`;
  if (!process.report.getReport().header.glibcVersionRuntime) return 'this Linux has no glibc';
  if (!fs.existsSync(path.join(headers, 'node_api.h'))) return `Node's headers are not at ${headers}`;
  return null;
}

export function buildNative() {
  const headers = path.resolve(path.dirname(process.execPath), '..', 'include', 'node');
  const why = unbuildable(headers);
  if (why) {
    console.warn(`native: malloc-trim not built (${why}); the server runs without it`);
    return null;
  }
  const staging = `${MALLOC_TRIM_ADDON}.${process.pid}.tmp`;
  fs.mkdirSync(path.dirname(MALLOC_TRIM_ADDON), { recursive: true });
  try {
    // -z now: a symbol missing at load fails the load, never a later call.
    execFileSync(process.env.CC || 'cc', ['-O2', '-shared', '-fPIC', '-Wall', '-Wl,-z,now', `-I${headers}`, '-o', staging, MALLOC_TRIM_SOURCE], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 60_000,
    });
  } catch (err) {
    fs.rmSync(staging, { force: true });
    console.warn(
      `native: malloc-trim not built (${
        String(err.stderr ?? err.message)
          .trim()
          .split('\n')[0]
      }); the server runs without it`,
    );
    return null;
  }
  fs.renameSync(staging, MALLOC_TRIM_ADDON);
  return MALLOC_TRIM_ADDON;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildNative();
}
