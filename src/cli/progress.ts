interface Output {
  write(text: string): unknown;
  /** True on a terminal (process.stderr has it); a pipe, a file or a test's collector has none. */
  isTTY?: boolean;
}

const BAR = 20;
/** Off a terminal (a log, a pipe), a progress line this often at most: a log is read, not watched. */
const LOG_EVERY_MS = 5000;
/** On a terminal, the line is drawn again this often at most: faster only costs writes. */
const REDRAW_MS = 100;

/** `[#####...............]` for done of total. */
export function progressBar(done: number, total: number): string {
  const filled = total > 0 ? Math.min(BAR, Math.floor((done * BAR) / total)) : BAR;
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}]`;
}

export interface ProgressPrinter {
  (phase: string, done: number, total: number): void;
  /** Call before writing anything else while a phase runs: on a terminal, takes the line being redrawn off the screen (the next update draws it again). */
  clear(): void;
  /** Call when the work is over: on a terminal, a line left short of its total (the work changed under it) ends where it stands. */
  end(): void;
}

/**
 * Prints progress to stderr. On a terminal, one line per phase, redrawn in place and left there
 * when the phase ends. Anywhere else each update is a whole line (a log reads them one by one):
 * the first of a phase, then one every LOG_EVERY_MS at most, and the last. `label` starts each
 * line (`seed`, `job 12`).
 */
export function progressPrinter(err: Output, label: string, startedAt = performance.now(), now = () => performance.now()): ProgressPrinter {
  const shown = new Map<string, { at: number; finished: boolean }>();
  const tty = err.isTTY === true;
  /** The phase whose line is on the terminal, unfinished (the cursor is at its end). */
  let open: string | null = null;
  const clear = () => {
    if (open === null) return;
    err.write('\r\x1b[K');
    open = null;
  };
  const end = () => {
    if (open === null) return;
    err.write('\n');
    open = null;
  };
  const update = (phase: string, done: number, total: number) => {
    const at = now();
    const last = shown.get(phase);
    const finished = done >= total;
    if (last?.finished) return;
    const due = !last || finished || at - last.at >= (tty ? REDRAW_MS : LOG_EVERY_MS) || (tty && open !== phase);
    if (!due) return;
    shown.set(phase, { at, finished });
    const percent = total > 0 ? Math.floor((done * 100) / total) : 100;
    const seconds = ((at - startedAt) / 1000).toFixed(1);
    const line = `${label}: ${phase.padEnd(11)} ${done.toLocaleString('en')}/${total.toLocaleString('en')} (${percent}%) ${progressBar(done, total)} ${seconds}s`;
    if (!tty) {
      err.write(`${line}\n`);
      return;
    }
    // Another phase left unfinished keeps its line: this one starts below it.
    if (open !== null && open !== phase) err.write('\n');
    err.write(`\r${line}\x1b[K${finished ? '\n' : ''}`);
    open = finished ? null : phase;
  };
  return Object.assign(update, { clear, end });
}
