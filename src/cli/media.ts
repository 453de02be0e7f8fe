import { parseArgs } from 'node:util';
import { loadConfig } from '../config.ts';
import { openDeps } from '../core/deps-open.ts';
import { checkMedia } from '../modules/uploads/media-check.ts';

export const MEDIA_USAGE = `  media check [--fix]
        Find rows without files, files without rows and missing thumbnails; --fix repairs them.
`;

const list = (items: string[]) => (items.length ? ` (${items.slice(0, 10).join(', ')}${items.length > 10 ? ', ...' : ''})` : '');

/** `imageboard media check [--fix]`: exit 0 when clean (or fixed), 1 when problems remain. */
export async function mediaCommand(args: string[]): Promise<number> {
  const { positionals, values } = parseArgs({ args, allowPositionals: true, options: { fix: { type: 'boolean', default: false } } });
  if (positionals[0] !== 'check' || positionals.length !== 1) {
    process.stderr.write(`Usage:\n${MEDIA_USAGE}`);
    return 2;
  }
  const deps = await openDeps(loadConfig());
  try {
    const r = await checkMedia(deps, values.fix, (msg) => process.stderr.write(`\r${msg}`));
    process.stderr.write('\n');
    const verb = values.fix ? 'fixed' : 'found';
    process.stdout.write(
      `checked ${r.postsChecked} posts and ${r.filesChecked} files\n` +
        `posts without their file: ${r.rowsWithoutFiles.length}${list(r.rowsWithoutFiles)}${values.fix && r.rowsWithoutFiles.length ? ' - deleted' : ''}\n` +
        `files without a post: ${r.filesWithoutRows.length}${list(r.filesWithoutRows)}${values.fix && r.filesWithoutRows.length ? ' - deleted' : ''}\n` +
        `posts missing a thumbnail: ${r.missingThumbnails.length}${list(r.missingThumbnails)}${values.fix && r.missingThumbnails.length ? ' - made again' : ''}\n` +
        `files younger than ${deps.config.mediaGraceMinutes} minutes (MEDIA_GRACE_MINUTES), left alone: ${r.recentFilesSkipped}\n`,
    );
    const problems = r.rowsWithoutFiles.length + r.filesWithoutRows.length + r.missingThumbnails.length;
    process.stdout.write(problems === 0 ? 'all good\n' : `${problems} problem(s) ${verb}\n`);
    return problems === 0 || values.fix ? 0 : 1;
  } finally {
    await deps.close();
  }
}
