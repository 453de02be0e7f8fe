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

function countOf(done: number, total: number | null): string {
  if (total === null) return done.toLocaleString('en');
  const percent = total > 0 ? Math.floor((done * 100) / total) : 100;
  return `${done.toLocaleString('en')}/${total.toLocaleString('en')} (${percent}%) ${progressBar(done, total)}`;
}

/** `, 52/s, 3m10s left`: the pace since the phase was first shown, and the time left at that pace while the total is ahead. */
function rateOf(first: { at: number; done: number }, at: number, done: number, total: number | null): string {
  const ms = at - first.at;
  if (ms < 1000 || done <= first.done) return '';
  const perSecond = ((done - first.done) * 1000) / ms;
  const rate = `, ${perSecond < 10 ? perSecond.toFixed(1) : Math.round(perSecond).toLocaleString('en')}/s`;
  return total === null || done >= total ? rate : `${rate}, ${duration((total - done) / perSecond)} left`;
}

/** 42s, 3m05s, 2h07m. */
export function duration(seconds: number): string {
  const s = Math.ceil(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export interface ProgressPrinter {
  /** `total` null: not known (a source read as it goes); the line shows the count and the rate only. */
  (phase: string, done: number, total: number | null): void;
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
  /** Where each phase's count stood when it was first shown: its rate is measured from there. */
  const firstOf = new Map<string, { at: number; done: number }>();
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
  const update = (phase: string, done: number, total: number | null) => {
    const at = now();
    const last = shown.get(phase);
    const finished = total !== null && done >= total;
    if (last?.finished) return;
    const due = !last || finished || at - last.at >= (tty ? REDRAW_MS : LOG_EVERY_MS) || (tty && open !== phase);
    if (!due) return;
    shown.set(phase, { at, finished });
    const first = firstOf.get(phase) ?? { at, done };
    firstOf.set(phase, first);
    const seconds = ((at - startedAt) / 1000).toFixed(1);
    const line = `${label}: ${phase.padEnd(11)} ${countOf(done, total)} ${seconds}s${rateOf(first, at, done, total)}`;
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
