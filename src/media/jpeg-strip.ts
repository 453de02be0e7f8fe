/**
 * A JPEG's metadata taken out without decoding it: the segments that carry EXIF (GPS among it),
 * XMP, IPTC, comments and makers' data are dropped, and whatever follows the picture's end is cut
 * (phones append further pictures there, each with its own EXIF). The compressed picture is copied
 * as it is, so nothing is lost to re-encoding and it costs no decoding. Kept: JFIF (APP0), the
 * colour profile (APP2 `ICC_PROFILE`) and Adobe's segment (APP14, which says how to read CMYK).
 * Null when the file is not laid out as a JPEG should be: the caller re-encodes it instead.
 */
export function stripJpegMetadata(buf: Buffer): Buffer | null {
  if (buf.length < 4 || buf[0] !== 0xff || buf[1] !== 0xd8) return null;
  const parts: Buffer[] = [buf.subarray(0, 2)];
  let i = 2;
  while (i + 1 < buf.length) {
    if (buf[i] !== 0xff) return null;
    const marker = buf[i + 1];
    if (marker === 0xff) {
      i++; // a fill byte before a marker
      continue;
    }
    if (marker === 0xd9) {
      parts.push(buf.subarray(i, i + 2));
      return Buffer.concat(parts);
    }
    if (marker === 0x01 || isRestart(marker)) {
      parts.push(buf.subarray(i, i + 2));
      i += 2;
      continue;
    }
    if (i + 4 > buf.length) return null;
    const end = i + 2 + buf.readUInt16BE(i + 2);
    if (end < i + 4 || end > buf.length) return null;
    if (kept(marker, buf.subarray(i + 4, end))) parts.push(buf.subarray(i, end));
    i = end;
    if (marker === 0xda) {
      // A scan's compressed data runs to the next marker: 0xFF followed by neither a stuffed zero nor a restart.
      const next = scanEnd(buf, i);
      if (next < 0) return null;
      parts.push(buf.subarray(i, next));
      i = next;
    }
  }
  return null;
}

const isRestart = (marker: number) => marker >= 0xd0 && marker <= 0xd7;

function scanEnd(buf: Buffer, from: number): number {
  for (let j = buf.indexOf(0xff, from); j >= 0 && j + 1 < buf.length; j = buf.indexOf(0xff, j + 1)) {
    const b = buf[j + 1];
    if (b !== 0x00 && !isRestart(b)) return j;
  }
  return -1;
}

const ICC = Buffer.from('ICC_PROFILE\u0000', 'latin1');
const ADOBE = Buffer.from('Adobe', 'latin1');

function kept(marker: number, payload: Buffer): boolean {
  if (marker === 0xe0) return true;
  if (marker === 0xe2) return payload.subarray(0, ICC.length).equals(ICC);
  if (marker === 0xee) return payload.subarray(0, ADOBE.length).equals(ADOBE);
  // APP1 (EXIF, XMP), APP3-APP13 (IPTC among them), APP15 and comments.
  return !((marker >= 0xe1 && marker <= 0xef) || marker === 0xfe);
}
