import fs from 'node:fs/promises';
import type { UploadLimits } from '../../config.ts';
import { AppError } from '../../core/errors.ts';
import { contentPath } from '../../core/media-paths.ts';
import { imageDerivatives, inspectImage, stripMetadata } from '../../media/image.ts';
import { ffmpegAvailable, posterFrame, probeVideo, remuxWithoutMetadata } from '../../media/video.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import type { Received } from './receive.ts';

/** The media columns of a post, and the files written for it. */
export interface StoredMedia {
  columns: {
    media_type: 'image' | 'video';
    mime: string;
    file_size: number;
    width: number;
    height: number;
    duration: number | null;
    codecs: string | null;
    is_animated: number;
    sha256: string;
    md5: string;
    phash: string;
    file_path: string;
    thumb_path: string;
    preview_path: string;
  };
  written: string[];
  /** Bytes stored in all: the original, the thumbnail and the preview. */
  bytes: number;
}

/** Where an upload's original, thumbnail and preview are stored (named by content). */
export function mediaPaths(file: Pick<Received, 'sha256' | 'type'>) {
  return {
    file_path: contentPath('originals', file.sha256, file.type.ext),
    thumb_path: contentPath('thumbs', file.sha256, 'webp'),
    preview_path: contentPath('previews', file.sha256, 'webp'),
  };
}

/** Checks, decodes and stores an upload: original (metadata stripped), thumbnail and preview. */
export async function storeMedia(media: MediaStore, file: Received, limits: UploadLimits): Promise<StoredMedia> {
  const { sha256, md5, type } = file;
  const paths = mediaPaths(file);
  const written: string[] = [];
  try {
    const facts = type.kind === 'image' ? await storeImage(media, file, limits, paths.file_path) : await storeVideo(media, file, limits, paths.file_path);
    written.push(paths.file_path);
    await media.put(paths.thumb_path, facts.thumb);
    written.push(paths.thumb_path);
    await media.put(paths.preview_path, facts.preview);
    written.push(paths.preview_path);
    return {
      columns: {
        media_type: type.kind,
        mime: type.mime,
        file_size: facts.size,
        width: facts.width,
        height: facts.height,
        duration: facts.duration,
        codecs: facts.codecs,
        is_animated: facts.animated ? 1 : 0,
        sha256,
        md5,
        phash: facts.phash,
        ...paths,
      },
      written,
      bytes: facts.size + facts.thumb.length + facts.preview.length,
    };
  } catch (err) {
    await removeFiles(media, written);
    throw err;
  }
}

export async function removeFiles(media: MediaStore, paths: string[]): Promise<void> {
  await Promise.all(paths.map((p) => media.delete(p).catch(() => {})));
}

async function storeImage(media: MediaStore, file: Received, limits: UploadLimits, rel: string) {
  const info = await inspectImage(file.tmpPath, limits.maxImagePixels);
  const d = await imageDerivatives(file.tmpPath, limits.maxImagePixels);
  let size = file.size;
  if (info.hasMetadata) {
    const clean = `${file.tmpPath}.${file.type.ext}`;
    try {
      size = await stripMetadata(file.tmpPath, clean, file.type.mime, info, limits.maxImagePixels);
      await media.putFile(rel, clean);
    } finally {
      await fs.rm(clean, { force: true });
    }
  } else {
    await media.putFile(rel, file.tmpPath);
  }
  return { ...d, size, width: info.width, height: info.height, duration: null, codecs: null, animated: info.animated };
}

async function storeVideo(media: MediaStore, file: Received, limits: UploadLimits, rel: string) {
  const tools = { ffmpeg: limits.ffmpegPath, ffprobe: limits.ffprobePath };
  if (!(await ffmpegAvailable(tools))) {
    throw new AppError(415, 'Video uploads need ffmpeg on the server, and it is not installed (Debian package: ffmpeg)');
  }
  const v = await probeVideo(tools, file.tmpPath);
  if (v.duration > limits.maxVideoSeconds) {
    throw new AppError(413, `The video is ${Math.round(v.duration)} seconds long; at most ${limits.maxVideoSeconds} seconds are accepted`);
  }
  const d = await imageDerivatives(await posterFrame(tools, file.tmpPath, v.duration), limits.maxImagePixels);
  const clean = `${file.tmpPath}.${file.type.ext}`;
  try {
    await remuxWithoutMetadata(tools, file.tmpPath, clean, file.type.ext as 'mp4' | 'webm');
    const { size } = await fs.stat(clean);
    await media.putFile(rel, clean);
    return {
      ...d,
      size,
      width: v.width,
      height: v.height,
      duration: v.duration,
      codecs: [v.videoCodec, v.audioCodec].filter(Boolean).join(','),
      animated: false,
    };
  } finally {
    await fs.rm(clean, { force: true });
  }
}
