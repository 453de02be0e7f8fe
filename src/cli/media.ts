import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openDeps } from '../core/deps-open.ts';
import { checkMedia } from '../modules/uploads/media-check.ts';
import { fillMd5 } from '../modules/uploads/md5-fill.ts';
import { migrateCommand } from './media-migrate.ts';
import { progressPrinter } from './progress.ts';
import type { CommandIo } from './seed.ts';

export const MEDIA_USAGE = `  media check [--fix]
        Find rows without files, files without rows and missing thumbnails; --fix repairs them.
  media migrate --to s3
        Copy DATA_DIR/media into the bucket of the S3_* settings, each file checked by its sha256;
        run again to resume after an interruption. Then set MEDIA_STORE=s3.
  media md5
        Fill the md5 of posts made before it was stored, from their files (the server does this after start-up too).
`;

const list = (items: string[]) => (items.length ? ` (${items.slice(0, 10).join(', ')}${items.length > 10 ? ', ...' : ''})` : '');
const count = (n: number) => n.toLocaleString('en');

const STD_IO: CommandIo = { env: process.env, out: process.stdout, err: process.stderr };

/**
 * `imageboard media check [--fix]`, `media migrate --to s3` and `media md5`: exit 0 when clean (or
 * fixed), 1 when problems remain, 2 on a usage error.
 */
export async function mediaCommand(args: string[], io: CommandIo = STD_IO): Promise<number> {
  const { positionals, values } = parseArgs({
    args,
    allowPositionals: true,
    options: { fix: { type: 'boolean', default: false }, to: { type: 'string' } },
  });
  const [sub] = positionals;
  const usage = () => {
    io.err.write(`Usage:\n${MEDIA_USAGE}`);
    return 2;
  };
  if (positionals.length !== 1) return usage();
  if (sub === 'migrate') return values.to === 's3' && !values.fix ? migrateCommand(io) : usage();
  if (values.to !== undefined || !(sub === 'check' || (sub === 'md5' && !values.fix))) return usage();
  const deps = await openDeps(loadConfig(io.env), { err: io.err });
  try {
    return sub === 'md5' ? await md5(deps, io) : await check(deps, values.fix, io);
  } finally {
    await deps.close();
  }
}

async function check(deps: Awaited<ReturnType<typeof openDeps>>, fix: boolean, { out, err }: CommandIo): Promise<number> {
  // Progress says "posts 500/1,000"; "checked N posts" is the summary's, said once.
  const progress = progressPrinter(err, 'media check');
  const r = await checkMedia(deps, fix, (done, total) => progress('posts', done, total));
  progress.end();
  const verb = fix ? 'fixed' : 'found';
  out.write(
    `checked ${r.postsChecked} posts and ${r.filesChecked} files\n` +
      `posts without their file: ${r.rowsWithoutFiles.length}${list(r.rowsWithoutFiles)}${fix && r.rowsWithoutFiles.length ? ' - deleted' : ''}\n` +
      `files without a post: ${r.filesWithoutRows.length}${list(r.filesWithoutRows)}${fix && r.filesWithoutRows.length ? ' - deleted' : ''}\n` +
      `posts missing a thumbnail: ${r.missingThumbnails.length}${list(r.missingThumbnails)}${fix && r.missingThumbnails.length ? ' - made again' : ''}\n` +
      `files younger than ${deps.config.mediaGraceMinutes} minutes (MEDIA_GRACE_MINUTES), left alone: ${r.recentFilesSkipped}\n`,
  );
  const problems = r.rowsWithoutFiles.length + r.filesWithoutRows.length + r.missingThumbnails.length;
  out.write(problems === 0 ? 'all good\n' : `${problems} problem(s) ${verb}\n`);
  return problems === 0 || fix ? 0 : 1;
}

/** Fills md5 in the foreground; exit 1 when posts whose original is missing keep none. */
async function md5(deps: Awaited<ReturnType<typeof openDeps>>, { out, err }: CommandIo): Promise<number> {
  const missing: number[] = [];
  const progress = progressPrinter(err, 'md5');
  const r = await fillMd5(deps, {
    onProgress: (done, total) => progress('posts', done, total),
    onMissing: (ids) => missing.push(...ids),
  });
  progress.end();
  out.write(`posts without md5: ${count(r.total)}, filled: ${count(r.filled)}\n`);
  if (missing.length === 0) return 0;
  out.write(
    `posts whose original is missing, left without md5: ${count(missing.length)}${list(missing.map(String))}\n` +
      'imageboard media check --fix deletes such posts\n',
  );
  return 1;
}
