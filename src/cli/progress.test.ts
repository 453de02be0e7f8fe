import { test } from 'node:test';
import assert from 'node:assert/strict';
import { duration, progressPrinter } from './progress.ts';

/** Runs 10,001 updates (0 to 10,000) over `seconds` of a fake clock; what was written, write by write. */
function runFor(seconds: number, isTTY: boolean): string[] {
  const writes: string[] = [];
  let now = 0;
  const show = progressPrinter({ write: (t: string) => writes.push(t), isTTY }, 'test', 0, () => now);
  for (let done = 0; done <= 10_000; done++) {
    now = (done * seconds * 1000) / 10_000;
    show('files', done, 10_000);
  }
  return writes;
}

test('off a terminal each update is a whole line: the first, one every five seconds at most, and the last', () => {
  const writes = runFor(20, false);
  for (const w of writes) assert.match(w, /^test: files\s+[\d,]+\/10,000 \(\d+%\) \[[#.]{20}\] [\d.]+s(, [\d,]+\/s(, \d+s left)?)?\n$/, JSON.stringify(w));
  assert.ok(writes.length <= 6, `${writes.length} lines for 20 s`);
  assert.match(writes[0], / 0\/10,000 \(0%\)/);
  assert.match(writes.at(-1)!, / 10,000\/10,000 \(100%\) \[#{20}\] 20\.0s, 500\/s\n$/, 'the pace: 10,000 in 20 s');
  assert.match(writes[1], / 2,500\/10,000 .* 5\.0s, 500\/s, 15s left\n$/, 'and the time left at that pace');
  assert.equal(runFor(1, false).length, 2, 'a short step: its first line and its last');
});

test('on a terminal one line is redrawn in place and ended when the step is', () => {
  const writes = runFor(20, true);
  const ERASE = '\x1b[K'; // to the end of the line: a shorter line leaves nothing of the longer one
  for (const w of writes.slice(0, -1)) assert.ok(w.startsWith('\r') && w.endsWith(ERASE) && !w.includes('\n'), JSON.stringify(w));
  assert.match(writes.at(-1)!, /^\rtest: files\s+10,000\/10,000 \(100%\)/);
  assert.ok(writes.at(-1)!.endsWith(`${ERASE}\n`));
  assert.ok(writes.length <= 20 * 10 + 2, 'ten redraws a second at most');

  const other: string[] = [];
  const show = progressPrinter({ write: (t: string) => other.push(t), isTTY: true }, 'test', 0, () => 0);
  show('files', 1, 3);
  show.clear();
  assert.equal(other.at(-1), '\r\x1b[K', 'clear takes the line off before other output');
  show('files', 2, 3);
  assert.match(other.at(-1)!, /^\rtest: files\s+2\/3/, 'and the next update draws it again at once');
  show.end();
  assert.equal(other.at(-1), '\n', 'end leaves a line short of its total where it stands');
});

test('a total not known shows the count and the pace, no bar', () => {
  const writes: string[] = [];
  let now = 0;
  const show = progressPrinter({ write: (t: string) => writes.push(t) }, 'import', 0, () => now);
  show('posts', 0, null);
  now = 6000;
  show('posts', 300, null);
  assert.deepEqual(writes, ['import: posts       0 0.0s\n', 'import: posts       300 6.0s, 50/s\n']);
});

test('time left reads in seconds, minutes or hours', () => {
  assert.equal(duration(41.2), '42s');
  assert.equal(duration(185), '3m05s');
  assert.equal(duration(7620), '2h07m');
});
