import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openDeps } from '../core/deps-open.ts';
import { exportBoard } from '../modules/exports/export.service.ts';
import { ExportError } from '../modules/exports/export-format.ts';
import { progressPrinter } from './progress.ts';
import type { CommandIo } from './seed.ts';

export const EXPORT_USAGE = `  export DIR [--q QUERY]
        Write the board's posts into the folder DIR: each original file as stored, beside it a JSON
        sidecar (tags, rating, pools, comments, ...), and the tags, aliases, implications and pools
        (docs/export-format.md). --q: only the posts the search QUERY matches, with the tags and pools
        they have. DIR is made if missing; an earlier export there is written again (its files reused);
        any other folder with files in it is refused.
`;

const STD_IO: CommandIo = { env: process.env, out: process.stdout, err: process.stderr };

const count = (n: number) => n.toLocaleString('en');

/** `imageboard export DIR [--q QUERY]`: 0 when written; 1 when written without posts whose original is missing; 2 bad usage, a refused folder or query. */
export async function exportCommand(args: string[], io: CommandIo = STD_IO): Promise<number> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { q: { type: 'string' } } });
  if (positionals.length !== 1 || values.q?.trim() === '') {
    io.err.write(`Usage:\n${EXPORT_USAGE}`);
    return 2;
  }
  const [dir] = positionals;
  const deps = await openDeps(loadConfig(io.env), { err: io.err });
  const started = performance.now();
  const progress = progressPrinter(io.err, 'export');
  try {
    const r = await exportBoard(deps, dir, { q: values.q ?? null, onProgress: (done, total) => progress('posts', done, total) });
    progress.end();
    const seconds = (performance.now() - started) / 1000;
    io.out.write(
      `Exported ${count(r.manifest.posts)} posts (${count(r.bytes)} bytes of media) to ${dir}` +
        `${r.manifest.query === null ? '' : ` (query: ${r.manifest.query})`}: ` +
        `${count(r.tags)} tags, ${count(r.aliases)} aliases, ${count(r.implications)} implications, ${count(r.pools)} pools ` +
        `in ${seconds.toFixed(1)} s (${count(Math.round(r.manifest.posts / Math.max(seconds, 0.001)))} posts/s).\n`,
    );
    if (r.missing.length === 0) return 0;
    io.out.write(
      `warning: ${r.missing.length} post(s) left out, their original missing from the media store: ${r.missing.slice(0, 10).join(', ')}${r.missing.length > 10 ? ', ...' : ''}\n` +
        '`imageboard media check` lists such posts; --fix deletes them.\n',
    );
    return 1;
  } catch (err) {
    progress.end();
    if (!(err instanceof ExportError)) throw err;
    io.err.write(`${err.message}\n`);
    return 2;
  } finally {
    await deps.close();
  }
}
