import { execFile } from 'node:child_process';
import { AppError } from '../core/errors.ts';

/** ffmpeg and ffprobe come from the system (Debian package ffmpeg); every call has a timeout. */
const PROBE_TIMEOUT_MS = 20_000;
const FRAME_TIMEOUT_MS = 30_000;

function run(cmd: string, args: string[], timeout: number, maxBuffer = 8 * 1024 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout, maxBuffer, encoding: 'buffer', killSignal: 'SIGKILL' }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
}

/** Where the two programs are (settings FFMPEG_PATH and FFPROBE_PATH; default: found on PATH). */
export interface VideoTools {
  ffmpeg: string;
  ffprobe: string;
}

const available = new Map<string, Promise<boolean>>();
/** Whether ffmpeg and ffprobe can be run here (checked once per pair of paths). */
export function ffmpegAvailable(tools: VideoTools): Promise<boolean> {
  const key = `${tools.ffmpeg}\0${tools.ffprobe}`;
  let found = available.get(key);
  if (!found) {
    found = Promise.all([run(tools.ffprobe, ['-version'], 5000), run(tools.ffmpeg, ['-version'], 5000)]).then(
      () => true,
      () => false,
    );
    available.set(key, found);
  }
  return found;
}

export interface VideoInfo {
  duration: number;
  width: number;
  height: number;
  videoCodec: string;
  audioCodec: string | null;
  formatName: string;
}

/** Reads a video's streams; anything ffprobe cannot read, or without a video stream, is refused. */
export async function probeVideo(tools: VideoTools, file: string): Promise<VideoInfo> {
  let out: Buffer;
  try {
    out = await run(tools.ffprobe, ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file], PROBE_TIMEOUT_MS);
  } catch {
    throw new AppError(415, 'The video could not be read: it is damaged or not really MP4/WebM');
  }
  const info = JSON.parse(out.toString('utf8')) as {
    streams?: { codec_type?: string; codec_name?: string; width?: number; height?: number; duration?: string; tags?: { rotate?: string } }[];
    format?: { duration?: string; format_name?: string };
  };
  const video = info.streams?.find((s) => s.codec_type === 'video');
  const audio = info.streams?.find((s) => s.codec_type === 'audio');
  const duration = Number(info.format?.duration ?? video?.duration ?? NaN);
  if (!video?.width || !video.height || !Number.isFinite(duration)) {
    throw new AppError(415, 'The file has no readable video stream');
  }
  return {
    duration,
    width: video.width,
    height: video.height,
    videoCodec: video.codec_name ?? 'unknown',
    audioCodec: audio?.codec_name ?? null,
    formatName: info.format?.format_name ?? '',
  };
}

/** A PNG of one frame from the first seconds, for the poster thumbnail. */
export async function posterFrame(tools: VideoTools, file: string, duration: number): Promise<Buffer> {
  const at = Math.min(1, duration / 2).toFixed(3);
  try {
    return await run(
      tools.ffmpeg,
      ['-v', 'error', '-ss', at, '-i', file, '-frames:v', '1', '-f', 'image2', '-c:v', 'png', 'pipe:1'],
      FRAME_TIMEOUT_MS,
      256 * 1024 * 1024,
    );
  } catch {
    throw new AppError(415, 'No frame could be read from the video');
  }
}

const REMUX_TIMEOUT_MS = 120_000;

/**
 * Copies the streams into a new file without global or stream metadata (MP4 keeps GPS in its
 * metadata atoms), moving the index to the front so playback starts before the download ends.
 */
export async function remuxWithoutMetadata(tools: VideoTools, input: string, output: string, ext: 'mp4' | 'webm'): Promise<void> {
  const args = ['-v', 'error', '-y', '-i', input, '-map', '0:v', '-map', '0:a?', '-map_metadata', '-1', '-map_chapters', '-1', '-c', 'copy'];
  if (ext === 'mp4') args.push('-movflags', '+faststart');
  args.push('-f', ext === 'mp4' ? 'mp4' : 'webm', output);
  try {
    await run(tools.ffmpeg, args, REMUX_TIMEOUT_MS);
  } catch {
    throw new AppError(415, 'The video could not be processed: its streams cannot be copied');
  }
}
