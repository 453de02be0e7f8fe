import type { Metadata, Sharp } from 'sharp';
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
 * Decodes the whole image once (a damaged or truncated file fails here) into a ~1,000 px preview,
 * then makes the grid thumbnail and the perceptual hash from that preview. EXIF orientation applied.
 */
export async function imageDerivatives(input: string | Buffer, maxPixels: number): Promise<Derivatives> {
  let preview: Buffer;
  try {
    preview = await (await open(input, maxPixels))
      .rotate()
      .resize(PREVIEW_SIZE, PREVIEW_SIZE, { fit: 'inside', withoutEnlargement: true })
      .webp({ quality: 82 })
      .toBuffer();
  } catch (err) {
    if (/pixel limit/i.test(String(err))) throw new AppError(413, `The image is larger than ${Math.round(maxPixels / 1e6)} megapixels`);
    throw new AppError(415, 'The image could not be decoded: it is damaged or truncated');
  }
  const [thumb, phash] = await Promise.all([
    (await loadSharp())(preview).resize(THUMB_SIZE, THUMB_SIZE, { fit: 'inside', withoutEnlargement: true }).webp({ quality: 80 }).toBuffer(),
    perceptualHash(preview),
  ]);
  return { thumb, preview, phash };
}

/**
 * The original without EXIF/XMP/IPTC (so no GPS or place names are served), orientation baked in,
 * colour profile kept, written to `out` (which the store streams from: the encoded image is never
 * whole in memory here); returns its size. Animated GIF and WebP stay animated.
 */
export async function stripMetadata(file: string, out: string, mime: string, info: ImageInfo, maxPixels: number): Promise<number> {
  const img = (await open(file, maxPixels, info.animated)).rotate().keepIccProfile();
  return (await encodeAs(img, mime).toFile(out)).size;
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
