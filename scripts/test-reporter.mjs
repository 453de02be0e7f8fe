// The test runner's report when no one watches a terminal (CI, a log file): what a reader needs
// and no more. Each failure whole (where, the error with its stack), what a failing file printed,
// each skip with its reason, each test's own diagnostics (the figures a test gives), and the
// runner's closing counts. Node's TAP reporter wrote some 5,600 lines for a passing run.
import path from 'node:path';
import { inspect } from 'node:util';

const root = process.cwd();
const where = (file) => (file ? path.relative(root, file) : '');

/** The error a failing test threw, not the runner's wrapper around it, indented under its test. */
function describe(error) {
  const cause = error?.code === 'ERR_TEST_FAILURE' && error.cause ? error.cause : error;
  return inspect(cause, { depth: 4, breakLength: 120 })
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');
}

export default async function* compact(source) {
  /** The names of the tests under way, by nesting level (a file's events come together). */
  const open = [];
  /** What each test file's process printed, shown when one of its tests fails. */
  const output = new Map();
  const failedFiles = new Set();
  let files = 0;
  const nameOf = (data) => [...open.slice(0, data.nesting), data.name].join(' > ');
  // The runner's own lines (its closing counts) come last.
  const closing = [];
  for await (const { type, data } of source) {
    if (!data?.file) {
      if (type === 'test:diagnostic') closing.push(`# ${data.message}\n`);
      continue;
    }
    if (type === 'test:start') open[data.nesting] = data.name;
    else if (type === 'test:stdout' || type === 'test:stderr') {
      const lines = output.get(data.file) ?? [];
      if (lines.length < 200) lines.push(data.message.trimEnd());
      output.set(data.file, lines);
    } else if (type === 'test:diagnostic') yield `# ${open.slice(0, data.nesting + 1).join(' > ')}: ${data.message}\n`;
    else if (type === 'test:fail') {
      // A suite fails with its tests: they said why.
      if (data.details?.error?.failureType === 'subtestsFailed') continue;
      failedFiles.add(data.file);
      yield `not ok ${where(data.file)} > ${nameOf(data)}\n${describe(data.details?.error)}\n`;
    } else if (type === 'test:pass' && data.skip !== undefined) {
      yield `skip ${nameOf(data)} # SKIP ${typeof data.skip === 'string' ? data.skip : ''}\n`;
    } else if (type === 'test:complete' && data.name === data.file) {
      // A test file's process has ended.
      files++;
      if (data.details?.passed === false) failedFiles.add(data.file);
    }
  }
  for (const file of failedFiles) {
    const lines = output.get(file) ?? [];
    if (lines.length) yield `# what ${where(file)} printed:\n${lines.map((l) => `    | ${l}`).join('\n')}\n`;
  }
  yield `# files ${files}\n`;
  yield* closing;
}
