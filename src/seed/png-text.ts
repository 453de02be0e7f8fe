import { crc32 } from 'node:zlib';

/**
 * Making one PNG into many distinct files without touching its pixels. Kept apart from the
 * rendering code so the media-writing worker does not load sharp.
 */
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The text a post's original carries, which makes its bytes unique. */
export const postMark = (postId: number) => ['Comment', `seed post ${postId}`] as const;

/** Bytes a tEXt chunk adds: length, type and CRC words plus keyword, NUL separator and text. */
export const textChunkSize = (keyword: string, text: string) => 12 + keyword.length + 1 + text.length;

/** Offset of the IEND chunk, found by walking the chunk list. */
function iendOffset(png: Buffer): number {
  if (png.length < 20 || !png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error('not a PNG');
  for (let at = 8; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IEND') return at;
    at += 12 + length;
  }
  throw new Error('PNG has no IEND chunk');
}

/**
 * `png` with a tEXt chunk inserted before IEND, as three pieces (before, chunk, IEND onwards), so
 * it can be hashed or written without first being copied into one buffer.
 */
export function withTextChunkParts(png: Buffer, keyword: string, text: string): [Buffer, Buffer, Buffer] {
  const at = iendOffset(png);
  const body = Buffer.from(`tEXt${keyword}\0${text}`, 'latin1');
  const chunk = Buffer.alloc(body.length + 8);
  chunk.writeUInt32BE(body.length - 4, 0);
  body.copy(chunk, 4);
  chunk.writeUInt32BE(crc32(body), body.length + 4);
  return [png.subarray(0, at), chunk, png.subarray(at)];
}

/**
 * A copy of `png` with a tEXt chunk inserted before IEND. Decoders ignore tEXt, so the picture is
 * pixel-for-pixel the same; only the bytes (and so the sha256) differ.
 */
export function withTextChunk(png: Buffer, keyword: string, text: string): Buffer {
  return Buffer.concat(withTextChunkParts(png, keyword, text));
}
