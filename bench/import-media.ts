import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { Prng } from './scenarios.ts';

/**
 * The media of the import benchmark (bench/import.ts): distinct images of 0.5 to 2 megapixels,
 * two in three JPEG (one JPEG in five with EXIF, which the import strips by re-encoding) and the
 * rest PNG, each with a `.txt` sidecar of 10-20 tags. Made once into a cache under the OS's
 * temporary folder and reused by later runs (an image is made only when it is missing there).
 *
 * Noise-free gradients or flat shapes compress to a few KB, far below real files, and decode
 * faster; pure noise is far above them. So the content is coloured blobs (random pixels of a grid
 * ~48 px apart, scaled up cubically) with grain: JPEG at quality 90 with grain on every pixel
 * (~0.3 byte a pixel, a photo's order), PNG posterised in steps of 16 with grain on 15% of the
 * pixels (~0.8 byte a pixel, an illustration's order).
 */

const VERSION = 'v1';
export const DEFAULT_CACHE = path.join(os.tmpdir(), `imageboard-bench-import-${VERSION}`);

export interface BenchImage {
  file: string;
  sidecar: string;
}

/** The sizes, formats and tags depend on the image's number only. */
function rng(seed: number): () => number {
  const prng = new Prng(seed);
  return () => prng.next();
}

const SYLLABLES = ['ka', 'ri', 'mo', 'tan', 'sel', 'vu', 'no', 'shi', 'pa', 'lem', 'do', 'rin', 'yu', 'gor', 'ha', 'zel'];
const word = (n: number) => {
  let s = '';
  for (let k = n + 17; s.length < 6 || k > 0; k = Math.floor(k / SYLLABLES.length)) s += SYLLABLES[k % SYLLABLES.length];
  return s;
};

/** 10-20 tags: an artist, 0-2 characters, 0-1 copyright, a rating and general tags drawn Zipf-like from 2,000. */
export function tagsOf(i: number): string[] {
  const r = rng(i * 7919 + 1);
  const zipf = (n: number) => Math.floor(n * r() ** 3);
  const tags = new Set<string>([`artist:${word(zipf(300))}_art`]);
  for (let k = Math.floor(r() * 3); k > 0; k--) tags.add(`character:${word(zipf(500) + 5000)}`);
  if (r() < 0.7) tags.add(`copyright:${word(zipf(100) + 9000)}_series`);
  const want = 10 + Math.floor(r() * 11) - 1; // the rating is the last line
  for (let guard = 0; tags.size < want && guard < 200; guard++) tags.add(word(zipf(2000) + 20_000));
  tags.add(`rating:${['safe', 'safe', 'sketchy', 'unsafe'][Math.floor(r() * 4)]}`);
  return [...tags];
}

/** Width, height and format of image `i`: 0.5-2 MP, aspect 1:2 to 2:1. */
export function shapeOf(i: number): { width: number; height: number; format: 'jpeg' | 'png'; exif: boolean } {
  const r = rng(i * 104729 + 3);
  const pixels = 500_000 + r() * 1_500_000;
  const aspect = 2 ** (r() * 2 - 1);
  const width = Math.round(Math.sqrt(pixels * aspect));
  const height = Math.round(pixels / width);
  const format = r() < 2 / 3 ? 'jpeg' : 'png';
  return { width, height, format, exif: format === 'jpeg' && r() < 0.2 };
}

async function render(i: number): Promise<Buffer> {
  const { width: w, height: h, format, exif } = shapeOf(i);
  const gw = Math.max(4, Math.round(w / 48));
  const gh = Math.max(4, Math.round(h / 48));
  const px = await sharp(randomBytes(gw * gh * 3), { raw: { width: gw, height: gh, channels: 3 } })
    .resize(w, h, { kernel: 'cubic' })
    .raw()
    .toBuffer();
  const noise = randomBytes(w * h);
  const png = format === 'png';
  for (let p = 0, o = 0; p < w * h; p++, o += 3) {
    const n = noise[p];
    const grain = png ? (n < 38 ? ((n & 7) - 3) * 4 : 0) : (n % 17) - 8;
    for (let c = 0; c < 3; c++) {
      const v = (png ? (px[o + c] >> 4) << 4 : px[o + c]) + grain;
      px[o + c] = v < 0 ? 0 : Math.min(v, 255);
    }
  }
  const img = sharp(px, { raw: { width: w, height: h, channels: 3 } });
  if (png) return img.png().toBuffer();
  const jpeg = img.jpeg({ quality: 90 });
  return (exif ? jpeg.withExif({ IFD0: { Software: 'imageboard bench', Copyright: `bench image ${i}` } }) : jpeg).toBuffer();
}

function pathsOf(dir: string, i: number): BenchImage {
  const file = path.join(dir, `img-${String(i).padStart(6, '0')}.${shapeOf(i).format === 'png' ? 'png' : 'jpg'}`);
  return { file, sidecar: `${file}.txt` };
}

/** Images 0..count-1 in `dir`, made where missing, `parallel` at a time; each file is written whole (temporary name, then renamed). */
export async function prepareImages(dir: string, count: number, log: (line: string) => void, parallel = os.availableParallelism()): Promise<BenchImage[]> {
  fs.mkdirSync(dir, { recursive: true });
  const all = Array.from({ length: count }, (_, i) => pathsOf(dir, i));
  const missing = all.map((p, i) => ({ ...p, i })).filter((p) => !fs.existsSync(p.file) || !fs.existsSync(p.sidecar));
  if (missing.length === 0) return all;
  log(`images: making ${missing.length.toLocaleString('en')} of ${count.toLocaleString('en')} in ${dir} (once; later runs reuse them)`);
  sharp.concurrency(1);
  const started = performance.now();
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < missing.length) {
      const m = missing[next++];
      const tmp = `${m.file}.${process.pid}.part`;
      fs.writeFileSync(tmp, await render(m.i));
      fs.renameSync(tmp, m.file);
      fs.writeFileSync(m.sidecar, `${tagsOf(m.i).join('\n')}\n`);
      if (++done % 500 === 0) log(`images: ${done.toLocaleString('en')} made (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, worker));
  log(`images: made in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return all;
}

/** Sizes of a set of images: files, total bytes, megapixels, and how many are PNG. */
export function describeImages(images: BenchImage[]): { files: number; bytes: number; megapixels: number; png: number; exif: number } {
  let bytes = 0;
  let megapixels = 0;
  let png = 0;
  let exif = 0;
  images.forEach((img, i) => {
    bytes += fs.statSync(img.file).size;
    const s = shapeOf(i);
    megapixels += (s.width * s.height) / 1e6;
    if (s.format === 'png') png++;
    if (s.exif) exif++;
  });
  return { files: images.length, bytes, megapixels, png, exif };
}
