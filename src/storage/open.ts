import path from 'node:path';
import { tmpDirOf, type Config } from '../config.ts';
import { LocalMediaStore } from './local.ts';
import type { S3MediaStore } from './s3.ts';

/** The configured media store (MEDIA_STORE). The S3 client is loaded only when used. */
export async function openMediaStore(config: Config): Promise<LocalMediaStore | S3MediaStore> {
  if (config.mediaStore === 's3') {
    const { S3MediaStore } = await import('./s3.ts');
    return new S3MediaStore(config.s3, tmpDirOf(config));
  }
  return new LocalMediaStore(localMediaDir(config), tmpDirOf(config));
}

/** DATA_DIR/media: the local store's folder, and where `media migrate` copies from. */
export const localMediaDir = (config: Pick<Config, 'dataDir'>) => path.join(config.dataDir, 'media');
