/** Media types the board accepts, found from the first bytes of a file (then confirmed by decoding). */
export interface Sniffed {
  mime: string;
  ext: string;
  kind: 'image' | 'video';
}

/** Bytes needed to tell every accepted type apart. */
export const SNIFF_BYTES = 4100;

const ascii = (b: Buffer, at: number, text: string) => b.length >= at + text.length && b.toString('latin1', at, at + text.length) === text;

const MP4_BRANDS = ['isom', 'iso2', 'iso3', 'iso4', 'iso5', 'iso6', 'mp41', 'mp42', 'avc1', 'dash', 'M4V ', 'MSNV', 'mmp4'];

export function sniff(head: Buffer): Sniffed | null {
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { mime: 'image/jpeg', ext: 'jpg', kind: 'image' };
  if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return { mime: 'image/png', ext: 'png', kind: 'image' };
  }
  if (ascii(head, 0, 'GIF87a') || ascii(head, 0, 'GIF89a')) return { mime: 'image/gif', ext: 'gif', kind: 'image' };
  if (ascii(head, 0, 'RIFF') && ascii(head, 8, 'WEBP')) return { mime: 'image/webp', ext: 'webp', kind: 'image' };
  if (ascii(head, 4, 'ftyp')) {
    const brand = head.toString('latin1', 8, 12);
    if (brand === 'avif' || brand === 'avis') return { mime: 'image/avif', ext: 'avif', kind: 'image' };
    if (MP4_BRANDS.includes(brand)) return { mime: 'video/mp4', ext: 'mp4', kind: 'video' };
    return null;
  }
  // EBML header; Matroska and WebM share it, the DocType says which.
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) {
    const docType = head.indexOf('webm', 0, 'latin1');
    if (docType > 0 && docType < 64) return { mime: 'video/webm', ext: 'webm', kind: 'video' };
  }
  return null;
}
