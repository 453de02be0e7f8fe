import sonicBoom from 'sonic-boom';

// A CommonJS module: its class is a property of the default export.
const { SonicBoom } = sonicBoom;
type SonicBoom = InstanceType<typeof SonicBoom>;

/** While stdout cannot be written, log lines wait up to this many bytes; newer ones are dropped. */
const BACKLOG_BYTES = 4 * 1024 * 1024;

let shared: SonicBoom | null = null;

/**
 * Where the server's logs go: stdout, written in the background as pino's own destination does,
 * one for the process however many apps it builds. Unlike pino's, a write that fails (stdout a
 * file on a full disk) neither ends the process nor hangs its exit: pino's throws the error, an
 * uncaught exception, and its flush at exit then retries for ever (sonic-boom retries any error).
 * Here the lines wait for the next write (up to BACKLOG_BYTES, then new ones are lost), and the
 * flush at exit is skipped while writes fail.
 */
export function stdoutLog(): SonicBoom {
  if (shared) return shared;
  const out = new SonicBoom({ fd: process.stdout.fd ?? 1, maxLength: BACKLOG_BYTES });
  let failing = false;
  out.on('error', () => {
    failing = true;
  });
  out.on('write', () => {
    failing = false;
  });
  process.on('exit', () => {
    if (!failing) out.flushSync();
  });
  shared = out;
  return out;
}
