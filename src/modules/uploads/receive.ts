import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Multipart, MultipartFile } from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import type { UploadLimits } from '../../config.ts';
import { AppError } from '../../core/errors.ts';
import { formParts } from '../../core/multipart.ts';
import { SNIFF_BYTES, sniff, type Sniffed } from '../../media/sniff.ts';
import { ownedName } from '../../storage/owner.ts';

export interface Received {
  tmpPath: string;
  filename: string;
  size: number;
  sha256: string;
  /** For searches by md5 (`md5:HEX`); sha256 is the file's identity. */
  md5: string;
  type: Sniffed;
}

const mb = (n: number) => `${Math.round(n / 1024 / 1024)} MB`;

const UNSUPPORTED = 'Unsupported file type: accepted are JPEG, PNG, GIF, WebP and AVIF images and MP4 and WebM videos';

/**
 * Streams an upload to a temporary file while hashing it (SHA-256 and MD5 of the bytes as sent);
 * never holds it whole in memory. The type is read from the first bytes, and the size limit for
 * that type applies as the bytes arrive.
 */
export async function receiveFile(file: MultipartFile, tmpDir: string, limits: UploadLimits): Promise<Received> {
  try {
    return await receiveStream(file.file, file.filename ?? '', tmpDir, limits, () => file.file.truncated);
  } catch (err) {
    file.file.resume(); // drain what the client still sends
    throw err;
  }
}

/**
 * receiveFile for any stream of bytes (an upload's part, or a file an import reads): the bytes
 * copied to a temporary file of this process, hashed and checked as they pass. `truncated` says
 * whether the stream was cut at a limit of its own.
 */
export async function receiveStream(
  input: NodeJS.ReadableStream,
  filename: string,
  tmpDir: string,
  limits: UploadLimits,
  truncated: () => boolean = () => false,
): Promise<Received> {
  await fs.promises.mkdir(tmpDir, { recursive: true });
  const tmpPath = path.join(tmpDir, ownedName('upload'));
  const sha256 = createHash('sha256');
  const md5 = createHash('md5');
  let size = 0;
  let head = Buffer.alloc(0);
  let type: Sniffed | null | undefined;
  let limit = Math.max(limits.maxImageBytes, limits.maxVideoBytes);
  const decide = () => {
    type = sniff(head);
    if (type) limit = type.kind === 'image' ? limits.maxImageBytes : limits.maxVideoBytes;
  };
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      sha256.update(chunk);
      md5.update(chunk);
      if (type === undefined) {
        head = Buffer.concat([head, chunk.subarray(0, SNIFF_BYTES - head.length)]);
        if (head.length >= SNIFF_BYTES) decide();
      }
      if (type === null) return done(new AppError(415, UNSUPPORTED));
      if (size > limit) return done(new AppError(413, `The file is larger than ${mb(limit)}, the limit for ${type?.kind ?? 'media'}`));
      done(null, chunk);
    },
    flush(done) {
      if (type === undefined) decide();
      done();
    },
  });
  // The file is created before any byte is read: a write stream would open it asynchronously, and a
  // body that breaks first could see the file removed and then created behind its back.
  const out = await fs.promises.open(tmpPath, 'wx');
  try {
    await pipeline(input, meter, out.createWriteStream());
    if (truncated()) throw new AppError(413, `The file is larger than ${mb(limit)}`);
    if (size === 0) throw new AppError(400, 'The file is empty', { details: [{ field: 'file', message: 'empty' }] });
    if (!type) throw new AppError(415, UNSUPPORTED);
    return { tmpPath, filename, size, sha256: sha256.digest('hex'), md5: md5.digest('hex'), type };
  } catch (err) {
    await fs.promises.rm(tmpPath, { force: true });
    throw err;
  }
}

/** A multipart body as read: each file part in a temporary file, and the text fields. */
export interface ReceivedForm {
  files: Received[];
  fields: Record<string, string>;
}

/**
 * Reads a multipart body whose files are media, each streamed to a temporary file. `check` is
 * shown every part before it is read and throws to refuse it. If reading fails part way, the files
 * already received are removed; once it returns, removing them (removeReceived) is the caller's.
 */
export async function receiveForm(
  req: FastifyRequest,
  tmpDir: string,
  limits: UploadLimits,
  maxFields: number,
  check: (part: Multipart) => void,
): Promise<ReceivedForm> {
  const form: ReceivedForm = { files: [], fields: {} };
  try {
    for await (const part of formParts(req, { fileSize: Math.max(limits.maxImageBytes, limits.maxVideoBytes) + 1, files: 1, fields: maxFields })) {
      check(part);
      if (part.type === 'file') form.files.push(await receiveFile(part, tmpDir, limits));
      else form.fields[part.fieldname] = String(part.value);
    }
    return form;
  } catch (err) {
    await removeReceived(form);
    throw err;
  }
}

/** Removes a read form's temporary files; safe to call more than once. */
export async function removeReceived(form: ReceivedForm): Promise<void> {
  await Promise.all(form.files.map((f) => fs.promises.rm(f.tmpPath, { force: true })));
}
