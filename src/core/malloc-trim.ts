import { createRequire } from 'node:module';

/** Linux with glibc: where `npm run build` builds the addon (malloc_trim is glibc's). */
export function onGlibc(): boolean {
  return process.platform === 'linux' && Boolean((process.report.getReport() as { header: { glibcVersionRuntime?: string } }).header.glibcVersionRuntime);
}

/** Gives the malloc heap's free pages back to the system; true when some were. */
export type Trim = () => boolean;

/**
 * The native addon's trim (native/malloc-trim.c, built by `npm run build` on Linux with glibc),
 * or null where it was not built or does not load: the server then runs without it.
 */
export function loadMallocTrim(addon: string): Trim | null {
  try {
    const { trim } = createRequire(import.meta.url)(addon) as { trim?: unknown };
    return typeof trim === 'function' ? (trim as Trim) : null;
  } catch {
    return null;
  }
}

/**
 * Trims every `everyMs` (0: never) until stopped; the timer keeps no process alive. glibc keeps
 * the pages of blocks freed between live ones: under load they were ~10 MB a process, given back
 * in well under a millisecond a call (docs/benchmarks.md, Memory).
 */
export function startMallocTrim(everyMs: number, trim: Trim | null): { stop(): void } | null {
  if (everyMs <= 0 || !trim) return null;
  const timer = setInterval(trim, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
