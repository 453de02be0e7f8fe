import sharp from 'sharp';
import { perceptualHash } from '../media/phash.ts';
import type { Random } from './random.ts';

/**
 * The seeder renders a small pool of distinct base pictures once; every post's original is a
 * base PNG made unique by a text chunk (so its bytes, sha256 and path are its own), and shares the
 * base's thumbnail and perceptual hash, which is exactly what the unique original decodes to.
 */
export interface BaseImage {
  /** The PNG, or null with --no-media (nothing is rendered then). */
  png: Buffer | null;
  /** WebP thumbnail, at most THUMB_SIZE on the long side; null with --no-media. */
  thumb: Buffer | null;
  width: number;
  height: number;
  /** Byte size of the PNG (invented with --no-media). */
  size: number;
  phash: string;
}

export const THUMB_SIZE = 300;
const SIZES: readonly (readonly [number, number])[] = [
  [400, 300],
  [300, 400],
  [400, 400],
  [480, 270],
  [360, 270],
  [320, 400],
];

const colour = (rng: Random) => `hsl(${rng.int(360)},${35 + rng.int(55)}%,${25 + rng.int(55)}%)`;

/** A gradient and a handful of overlapping shapes: cheap to render, clearly distinct pictures. */
export function baseSvg(rng: Random, width: number, height: number): string {
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">`,
    `<defs><linearGradient id="g" x1="0" y1="0" x2="${rng.next().toFixed(2)}" y2="1">`,
    `<stop offset="0" stop-color="${colour(rng)}"/><stop offset="1" stop-color="${colour(rng)}"/></linearGradient></defs>`,
    '<rect width="100%" height="100%" fill="url(#g)"/>',
  ];
  const shapes = 4 + rng.int(8);
  for (let i = 0; i < shapes; i++) {
    const x = rng.int(width);
    const y = rng.int(height);
    const size = 20 + rng.int(Math.floor(width / 2.5));
    const fill = `fill="${colour(rng)}" opacity="${(0.6 + rng.next() * 0.4).toFixed(2)}"`;
    const kind = rng.int(3);
    if (kind === 0) parts.push(`<circle cx="${x}" cy="${y}" r="${size / 2}" ${fill}/>`);
    else if (kind === 1) {
      parts.push(
        `<rect x="${x - size / 2}" y="${y - size / 3}" width="${size}" height="${Math.round(size * 0.66)}" ${fill} transform="rotate(${rng.int(90)} ${x} ${y})"/>`,
      );
    } else parts.push(`<polygon points="${x},${y - size / 2} ${x + size / 2},${y + size / 2} ${x - size / 2},${y + size / 2}" ${fill}/>`);
  }
  parts.push('</svg>');
  return parts.join('');
}

async function renderOne(svg: string): Promise<Omit<BaseImage, 'width' | 'height'>> {
  // A 64-colour palette keeps originals near 7 KB, so 100,000 posts stay under a gigabyte.
  const png = await sharp(Buffer.from(svg)).png({ palette: true, colours: 64, effort: 1, dither: 0 }).toBuffer();
  const [thumb, phash] = await Promise.all([
    sharp(png).resize(THUMB_SIZE, THUMB_SIZE, { fit: 'inside' }).webp({ quality: 75 }).toBuffer(),
    perceptualHash(png),
  ]);
  return { png, thumb, size: png.length, phash };
}

/** Renders `count` base images, a few at a time; the result is in a fixed order. */
export async function renderBaseImages(count: number, rng: Random, onDone: (done: number) => void = () => {}): Promise<BaseImage[]> {
  const specs = Array.from({ length: count }, () => {
    const [width, height] = rng.pick(SIZES);
    return { width, height, svg: baseSvg(rng, width, height) };
  });
  const out: BaseImage[] = new Array(count);
  let next = 0;
  let done = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      out[i] = { width: specs[i].width, height: specs[i].height, ...(await renderOne(specs[i].svg)) };
      onDone(++done);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  return out;
}

/** With --no-media: the same shape of data, nothing rendered. */
export function virtualBaseImages(count: number, rng: Random): BaseImage[] {
  return Array.from({ length: count }, () => {
    const [width, height] = rng.pick(SIZES);
    const phash = rng.bytes(8).toString('hex');
    return { png: null, thumb: null, width, height, size: 5_000 + rng.int(6_000), phash };
  });
}
