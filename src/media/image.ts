import fs from 'node:fs/promises';
import type { Metadata, OutputInfo, Sharp } from 'sharp';
import { stripJpegMetadata } from './jpeg-strip.ts';
import { loadSharp } from './sharp.ts';
import { AppError } from '../core/errors.ts';
import { perceptualHash } from './phash.ts';

export const THUMB_SIZE = 300;
export const PREVIEW_SIZE = 1000;

export interface ImageInfo {
  /** As displayed: EXIF orientation applied. */
  width: number;
  height: number;
  animated: boolean;
  /** The file carries EXIF, XMP or IPTC metadata (GPS and place names live there). */
  hasMetadata: boolean;
  meta: Metadata;
}

async function open(input: string | Buffer, maxPixels: number, animated = false): Promise<Sharp> {
  return (await loadSharp())(input, { limitInputPixels: maxPixels, failOn: 'error', animated, sequentialRead: true });
}

/** Reads the header only: a decompression bomb is refused here, before any pixel is decoded. */
export async function inspectImage(file: string, maxPixels: number): Promise<ImageInfo> {
  let meta: Metadata;
  try {
    meta = await (await loadSharp())(file, { limitInputPixels: false }).metadata();
  } catch {
    throw new AppError(415, 'The image could not be read: it is damaged or not really the type it claims');
  }
  const { width = 0, height = 0 } = meta;
  if (width <= 0 || height <= 0) throw new AppError(415, 'The image has no size');
  if (width * height > maxPixels) {
    throw new AppError(413, `The image is ${width}x${height} pixels; at most ${Math.round(maxPixels / 1e6)} megapixels are accepted`);
  }
  const rotated = (meta.orientation ?? 1) >= 5;
  return {
    width: rotated ? height : width,
    height: rotated ? width : height,
    animated: (meta.pages ?? 1) > 1,
    hasMetadata: Boolean(meta.exif || meta.xmp || meta.iptc),
    meta,
  };
}

export interface Derivatives {
  thumb: Buffer;
  preview: Buffer;
  phash: string;
}

/**
 * WebP's effort (0-6) for previews and thumbnails. Encoding is most of the CPU an image costs
 * (docs/benchmarks.md, "Import"): effort 2 takes about half of the default 4's time for files
 * a few percent larger.
 */
const WEBP_EFFORT = 2;

/**
 * Decodes the whole image once (a damaged or truncated file fails here) into the pixels of a
 * ~1,000 px preview, EXIF orientation applied; the preview is encoded from them, the grid thumbnail
 * is scaled down from them, and the perceptual hash is taken from the thumbnail's pixels.
 */
export async function imageDerivatives(input: string | Buffer, maxPixels: number): Promise<Derivatives> {
  let pixels: { data: Buffer; info: OutputInfo };
  try {
    pixels = await (await open(input, maxPixels))
      .rotate()
      .resize(PREVIEW_SIZE, PREVIEW_SIZE, { fit: 'inside', withoutEnlargement: true })
      .raw()
      .toBuffer({ resolveWithObject: true });
  } catch (err) {
    if (/pixel limit/i.test(String(err))) throw new AppError(413, `The image is larger than ${Math.round(maxPixels / 1e6)} megapixels`);
    throw new AppError(415, 'The image could not be decoded: it is damaged or truncated');
  }
  const sharp = await loadSharp();
  const fromRaw = ({ data, info }: typeof pixels) => sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
  const small = await fromRaw(pixels).resize(THUMB_SIZE, THUMB_SIZE, { fit: 'inside', withoutEnlargement: true }).raw().toBuffer({ resolveWithObject: true });
  const [preview, thumb, phash] = await Promise.all([
    fromRaw(pixels).webp({ quality: 82, effort: WEBP_EFFORT }).toBuffer(),
    fromRaw(small).webp({ quality: 80, effort: WEBP_EFFORT }).toBuffer(),
    perceptualHash(fromRaw(small)),
  ]);
  return { thumb, preview, phash };
}

/**
 * The original without EXIF/XMP/IPTC (so no GPS or place names are served), orientation baked in,
 * colour profile kept, written to `out`; returns its size. An upright JPEG loses its metadata
 * segments and keeps its compressed picture byte for byte (jpeg-strip.ts); anything else is
 * re-encoded (streamed: never whole in memory here). Animated GIF and WebP stay animated.
 */
export async function stripMetadata(file: string, out: string, mime: string, info: ImageInfo, maxPixels: number): Promise<number> {
  if (mime === 'image/jpeg' && (info.meta.orientation ?? 1) === 1) {
    const stripped = stripJpegMetadata(await fs.readFile(file));
    if (stripped && (await sameImage(stripped, info))) {
      await fs.writeFile(out, stripped);
      return stripped.length;
    }
  }
  const img = (await open(file, maxPixels, info.animated)).rotate().keepIccProfile();
  return (await encodeAs(img, mime).toFile(out)).size;
}

/** The stripped file's header still reads as the original's picture (a cheap check: no pixel is decoded). */
async function sameImage(stripped: Buffer, info: ImageInfo): Promise<boolean> {
  try {
    const m = await (await loadSharp())(stripped).metadata();
    return m.width === info.meta.width && m.height === info.meta.height && !m.exif && !m.xmp && !m.iptc;
  } catch {
    return false;
  }
}

function encodeAs(img: Sharp, mime: string): Sharp {
  switch (mime) {
    case 'image/jpeg':
      return img.jpeg({ quality: 95, mozjpeg: true });
    case 'image/png':
      return img.png();
    case 'image/webp':
      return img.webp({ quality: 95 });
    case 'image/gif':
      return img.gif();
    default:
      return img.avif({ quality: 80 });
  }
}
