import { loadConfig, tmpDirOf } from '../config.ts';
import { migrateMedia } from '../modules/uploads/media-migrate.ts';
import { LocalMediaStore } from '../storage/local.ts';
import { localMediaDir } from '../storage/open.ts';
import { S3MediaStore } from '../storage/s3.ts';
import { progressPrinter } from './progress.ts';
import type { CommandIo } from './seed.ts';

const list = (items: string[]) => (items.length ? ` (${items.slice(0, 10).join(', ')}${items.length > 10 ? ', ...' : ''})` : '');

/**
 * `imageboard media migrate --to s3`: DATA_DIR/media into the configured bucket. Exit 0 when every
 * file is there with its bytes, 1 when some could not be verified, 2 without a bucket to copy to.
 */
export async function migrateCommand(io: CommandIo): Promise<number> {
  const config = loadConfig(io.env);
  if (!config.s3.bucket) {
    io.err.write('media migrate --to s3 needs the bucket: set S3_BUCKET (and S3_ENDPOINT, S3_REGION, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY as needed)\n');
    return 2;
  }
  const from = new LocalMediaStore(localMediaDir(config), tmpDirOf(config));
  const to = new S3MediaStore(config.s3, tmpDirOf(config));
  io.err.write(`Copying ${from.root} to bucket ${config.s3.bucket}${config.s3.endpoint ? ` at ${config.s3.endpoint}` : ''}\n`);
  try {
    await to.check();
    const progress = progressPrinter(io.err, 'migrate');
    const r = await migrateMedia(from, to, { onProgress: (done, total) => progress('files', done, total) });
    progress.end(); // stopped part-way, the line is short of its total
    io.out.write(
      `files: ${r.total}, copied: ${r.copied}, already there: ${r.alreadyThere}\n` +
        `copied again (other bytes were there): ${r.replaced.length}${list(r.replaced)}\n` +
        `read back with other bytes: ${r.failed.length}${list(r.failed)}\n`,
    );
    if (r.stopped) {
      io.out.write('stopped before the end: run it again to go on\n');
      return 1;
    }
    if (r.failed.length > 0) return 1;
    io.out.write('all files are in the bucket: set MEDIA_STORE=s3 and restart; DATA_DIR/media may then be removed\n');
    return 0;
  } finally {
    await to.close();
  }
}
