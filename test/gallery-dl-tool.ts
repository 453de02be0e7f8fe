// The gallery-dl the tests drive: Debian's, or GALLERY_DL_PATH.
import { execFileSync } from 'node:child_process';

export const GALLERY_DL = process.env.GALLERY_DL_PATH ?? 'gallery-dl';

/** Why gallery-dl cannot run here, or null. */
export function galleryDlMissing(): string | null {
  try {
    execFileSync(GALLERY_DL, ['--version'], { stdio: 'ignore', timeout: 30_000 });
    return null;
  } catch {
    return `gallery-dl not found (${GALLERY_DL}): apt-get install gallery-dl, or set GALLERY_DL_PATH`;
  }
}
