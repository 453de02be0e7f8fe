import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';

/** Real small media files, generated on demand (sharp and the system ffmpeg), cached per process. */

function pattern(width: number, height: number, seed: number) {
  // The colours repeat every 360 seeds, so seeds 360 apart made the same bytes (two loads seeded
  // 6000 and 7000 uploaded one image twice and met a 409): a bar as wide as seed / 360 parts them.
  const turn = Math.floor(seed / 360);
  const bar = turn > 0 ? `<rect x="0" y="0" width="${1 + (turn % Math.max(1, width - 1))}" height="3" fill="black"/>` : '';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="hsl(${(seed * 47) % 360},70%,60%)"/>
    <circle cx="${width * 0.3}" cy="${height * 0.4}" r="${Math.min(width, height) / 4}" fill="hsl(${(seed * 91) % 360},80%,30%)"/>
    <rect x="${width * 0.55}" y="${height * 0.2}" width="${width / 3}" height="${height / 2}" fill="hsl(${(seed * 13) % 360},60%,85%)"/>${bar}
  </svg>`;
  return sharp(Buffer.from(svg));
}

export const png = (seed = 1, width = 320, height = 240) => pattern(width, height, seed).png().toBuffer();
export const webp = (seed = 2) => pattern(320, 240, seed).webp().toBuffer();
export const avif = (seed = 3) => pattern(128, 96, seed).avif().toBuffer();

/** A JPEG 400x200 as stored, with EXIF orientation 6 (displayed 200x400) and GPS coordinates. */
export function jpegWithExifAndGps(seed = 4): Promise<Buffer> {
  return pattern(400, 200, seed)
    .jpeg({ quality: 90 })
    .withMetadata({ orientation: 6 })
    .withExif({
      IFD0: { Make: 'TestCam', Model: 'Phone 1' },
      IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 2400/100', GPSLongitudeRef: 'E', GPSLongitude: '2/1 17/1 4000/100' },
    })
    .toBuffer();
}

/** A three-frame animated GIF. */
export async function animatedGif(): Promise<Buffer> {
  const frames = await Promise.all([1, 2, 3].map((s) => pattern(120, 90, s).png().toBuffer()));
  return sharp(frames, { join: { animated: true } })
    .gif({ delay: [100, 100, 100], loop: 0 })
    .toBuffer();
}

/** The first half of a JPEG: decoding fails partway. */
export async function truncatedJpeg(): Promise<Buffer> {
  const full = await pattern(640, 480, 5).jpeg().toBuffer();
  return full.subarray(0, Math.floor(full.length / 2));
}

function crc32(buf: Buffer): number {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return ~c >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

/** A tiny, valid-looking PNG whose header claims 30000x30000 pixels (a decompression bomb). */
export function pngBomb(size = 30000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const idat = zlib.deflateSync(Buffer.alloc(size * 3 + 1)); // one row of zeros
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', idat),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const svg = () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>');
export const textFile = () => Buffer.from('this is not an image, whatever its name says\n');

let videoDir: string | undefined;
/** A 2-second 160x120 test video made by ffmpeg, with a location tag in its metadata. */
export function video(kind: 'mp4' | 'webm'): Buffer {
  videoDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'ib-video-'));
  const out = path.join(videoDir, `clip.${kind}`);
  if (!fs.existsSync(out)) {
    const codec = kind === 'mp4' ? ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac'] : ['-c:v', 'libvpx', '-b:v', '200k', '-c:a', 'libopus'];
    execFileSync(
      'ffmpeg',
      [
        '-v',
        'error',
        '-y',
        '-f',
        'lavfi',
        '-i',
        'testsrc=duration=2:size=160x120:rate=10',
        '-f',
        'lavfi',
        '-i',
        'sine=frequency=440:duration=2',
        ...codec,
        '-metadata',
        'location=+48.8584+002.2945/',
        '-metadata',
        'title=secret place',
        '-shortest',
        out,
      ],
      { timeout: 60_000 },
    );
  }
  return fs.readFileSync(out);
}
