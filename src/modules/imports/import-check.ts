import type { UploadLimits } from '../../config.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { storeMedia } from '../uploads/process-media.ts';
import type { Received } from '../uploads/receive.ts';

/** A store that keeps nothing: a dry run goes through every check an upload makes and writes no file. */
const nowhere: MediaStore = {
  put: async () => {},
  putFile: async () => {},
  read: async () => {
    throw new Error('a dry run stores nothing to read');
  },
  delete: async () => {},
  exists: async () => false,
  stat: async () => null,
  list: async function* () {},
  withLocalFile: async () => {
    throw new Error('a dry run stores nothing to read');
  },
  check: async () => {},
  close: async () => {},
};

/** Decodes and checks a file as storing it would (throws the same errors), without writing any. */
export async function checkMedia(file: Received, limits: UploadLimits): Promise<void> {
  await storeMedia(nowhere, file, limits);
}
