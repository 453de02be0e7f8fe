interface Output {
  write(text: string): unknown;
}

const BAR = 20;

/** `[#####...............]` for done of total. */
export function progressBar(done: number, total: number): string {
  const filled = total > 0 ? Math.min(BAR, Math.floor((done * BAR) / total)) : BAR;
  return `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}]`;
}

/**
 * Prints progress to stderr, as lines (they read the same in a terminal and in a log): a line
 * per phase each time it crosses another tenth, or after a second without one, and when it
 * finishes. `label` starts each line (`seed`, `job 12`).
 */
export function progressPrinter(err: Output, label: string, startedAt = performance.now()) {
  const shown = new Map<string, { at: number; tenth: number; finished: boolean }>();
  return (phase: string, done: number, total: number) => {
    const now = performance.now();
    const last = shown.get(phase) ?? { at: 0, tenth: -1, finished: false };
    const tenth = total > 0 ? Math.floor((done * 10) / total) : 10;
    const finished = done >= total;
    if (last.finished || (!finished && tenth === last.tenth && now - last.at < 1000)) return;
    shown.set(phase, { at: now, tenth, finished });
    const percent = total > 0 ? Math.floor((done * 100) / total) : 100;
    const seconds = ((now - startedAt) / 1000).toFixed(1);
    err.write(
      `${label}: ${phase.padEnd(11)} ${done.toLocaleString('en')}/${total.toLocaleString('en')} (${percent}%) ${progressBar(done, total)} ${seconds}s\n`,
    );
  };
}
