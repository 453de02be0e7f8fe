import { randomUUID } from 'node:crypto';
import os from 'node:os';

/**
 * Temporary files and media journals carry the name of the process that wrote them (host and
 * pid), so a restarted board can tell the leftovers of a process that died from the work of one
 * still running on the same disk.
 */
const HOST = os.hostname().replace(/[^A-Za-z0-9-]/g, '-') || 'host';
const OWNED = /^([A-Za-z0-9-]+)_(\d+)_[0-9a-f-]{36}\./;

/** A file name in DATA_DIR/tmp owned by this process. */
export function ownedName(ext: string): string {
  return `${HOST}_${process.pid}_${randomUUID()}.${ext}`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * True when the file's writer is known to be gone: a process of this host that no longer runs, or
 * (at start-up, before this process has written anything) one with this process's pid, as a
 * container's pid 1 is after every restart. Another host's files are never known gone.
 */
export function ownerGone(name: string, atStartup: boolean): boolean {
  const m = OWNED.exec(name);
  if (!m || m[1] !== HOST) return false;
  const pid = Number(m[2]);
  if (pid === process.pid) return atStartup;
  return !alive(pid);
}
