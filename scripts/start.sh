#!/bin/sh
# `npm start`: the server from dist/ with the heap sizes and malloc settings it is measured with
# (docs/benchmarks.md, Memory). Each can be set by whoever starts it. exec: no shell stays behind.
# It builds nothing and writes nothing here: `npm run build` (run by npm install and npm ci) does
# the building, so an install can be read-only (docs/deploy.md, Install and start).
#
# glibc gives busy threads malloc arenas of their own and keeps their freed memory; and after a
# large block is freed it serves blocks of that size from the heap, where freed ones stay too.
# Two arenas, and blocks from 64 KB up mapped (and given back) on their own, kept the peak of a
# run of every benchmark 35 MB lower over two processes.
root="$(dirname "$0")/.."
if [ ! -f "$root/dist/server.js" ]; then
  echo "The server is not built (no dist/server.js). Run \`npm run build\` first (npm install and npm ci run it)." >&2
  exit 1
fi
if [ -n "$(find "$root/src" -newer "$root/dist/server.js" -name '*.ts' 2>/dev/null | head -n 1)" ]; then
  echo "warning: src/ has changed since the server was built; run \`npm run build\` to serve the change." >&2
fi
# Each JavaScript thread collects its own garbage: a server runs a serving thread a core
# (WORKERS=auto), and V8's helper threads only took CPU from the others. On 2 cores it lowered p99
# (danbooru-posts 96-114 -> 82-92 ms, search 32-35 -> 21 ms) and CPU a request
# (docs/benchmarks.md, Memory). The heap limits are each thread's.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-65536}"
export MALLOC_TRIM_THRESHOLD_="${MALLOC_TRIM_THRESHOLD_:-131072}"
exec node --max-semi-space-size=4 --max-old-space-size=256 --single-threaded-gc "$root/dist/server.js" "$@"
