#!/bin/sh
# `npm start`: the server from dist/ with the heap sizes and malloc settings it is measured with
# (docs/benchmarks.md, Memory). Each can be set by whoever starts it. exec: no shell stays behind.
#
# glibc gives busy threads malloc arenas of their own and keeps their freed memory; and after a
# large block is freed it serves blocks of that size from the heap, where freed ones stay too.
# Two arenas, and blocks from 64 KB up mapped (and given back) on their own, kept the peak of a
# run of every benchmark 35 MB lower over two processes.
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
export MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-65536}"
export MALLOC_TRIM_THRESHOLD_="${MALLOC_TRIM_THRESHOLD_:-131072}"
exec node --max-semi-space-size=4 --max-old-space-size=256 "$(dirname "$0")/../dist/server.js" "$@"
