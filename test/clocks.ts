// The clocks of the test suites: one moved by hand, and the same shared with server processes.
import fs from 'node:fs';
import type { Clock } from '../src/core/deps.ts';

/** A clock tests move by hand. Starts at a fixed instant so dates in fixtures are known. */
export class TestClock implements Clock {
  constructor(public t = Date.parse('2026-06-15T12:00:00.000Z')) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/**
 * The test clock of procs mode (test/procs.ts), shared with the server processes: it is kept in a
 * file they read (IMAGEBOARD_TEST_CLOCK_FILE), so moving it here moves theirs before the next request.
 */
export class SharedClock implements Clock {
  constructor(
    readonly file: string,
    t = new TestClock().t,
  ) {
    this.t = t;
  }
  get t(): number {
    return Number(fs.readFileSync(this.file, 'utf8'));
  }
  set t(value: number) {
    // Renamed into place: a server reading it meanwhile sees the old time or the new, never an empty file.
    fs.writeFileSync(`${this.file}.new`, String(value));
    fs.renameSync(`${this.file}.new`, this.file);
  }
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}
