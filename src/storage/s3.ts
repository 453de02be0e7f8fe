import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { S3Settings } from '../config.ts';
import type { MediaStore, StoredFile } from './media-store.ts';
import { contentTypeOf, MEDIA_CACHE_CONTROL } from './media-types.ts';
import { ownedName } from './owner.ts';
import { asOutage, isOutage } from './s3-outage.ts';

/** A file larger than this goes up in parts of this size (a single PUT takes at most 5 GB). */
const PART_SIZE = 64 * 1024 * 1024;

/**
 * The SDK waits forever by default: a bucket host that does not answer would hold every request
 * that needs it. A connection gets this long to open...
 */
const CONNECT_TIMEOUT_MS = 3_000;
/**
 * ...and a socket this long without a byte either way: no bound on the whole request, so a large
 * upload streams on. A host that takes connections and never answers fails a request in about
 * 40 s: three tries, each timed from 3 s in (the SDK arms a timer this long late).
 */
const IDLE_TIMEOUT_MS = 10_000;

/**
 * The SDK's log: nothing, as by default (given a logger it would log every request), and its
 * warnings on the console, but the one at each failed request whose body is a stream: sendFile
 * sends those again itself, and in an outage it would be a line a request.
 */
const sdkLogger = {
  debug: () => {},
  info: () => {},
  error: () => {},
  warn: (...content: unknown[]) => {
    if (!String(content[0]).includes('non-retryable streaming request')) console.warn(...content);
  },
};

/** An object as the media route serves it (serve-media.ts). */
export interface FetchedObject {
  status: 200 | 206 | 304 | 404 | 416;
  body?: Readable;
  length?: number;
  contentRange?: string;
  etag?: string;
  lastModified?: Date;
}

const statusOf = (err: unknown): number | undefined => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

/**
 * Sends a request whose body is streamed from a file, again from a fresh stream when it failed on
 * the way: the SDK retries nothing whose body is a stream (it cannot rewind one), so one connection
 * reset used to fail the upload. A PUT of an object or of a part is idempotent.
 */
async function sendFile<T>(open: () => Readable, send: (body: Readable) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const body = open();
    try {
      return await send(body);
    } catch (err) {
      // The connection broke, or the store was busy or failed: another try may not meet it.
      if (attempt >= attempts || !isOutage(err)) throw err;
      await new Promise((r) => setTimeout(r, 100 * 2 ** attempt));
    } finally {
      // A failed request may leave the file open. A request that failed at once (the bucket gone)
      // leaves it still opening, and the caller may remove the file first: nothing reads it now,
      // so that failure is no one's (unhandled, it would end the process).
      body.on('error', () => {});
      body.destroy();
    }
  }
}

/** A missing object fails as a missing file does, so callers handle both stores alike. */
function missing(rel: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`no such media file: ${rel}`), { code: 'ENOENT' });
}

/**
 * Media in an S3 bucket (AWS or any store that speaks its API; path-style when S3_ENDPOINT is
 * set, so an address without a wildcard name works). A PUT is whole or nothing, which gives what
 * the local store's rename gives. Files are streamed from disk, never read into memory.
 */
export class S3MediaStore implements MediaStore {
  readonly client: S3Client;
  readonly bucket: string;

  constructor(
    settings: S3Settings,
    readonly tmpDir: string,
    private readonly partSize = PART_SIZE,
  ) {
    this.bucket = settings.bucket;
    mkdirSync(tmpDir, { recursive: true });
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
      ...(settings.accessKeyId ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } } : {}),
      // Checksums only where the API needs them: the newer default sends streamed bodies in a
      // chunked encoding with trailers that many S3-compatible stores do not read.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, socketTimeout: IDLE_TIMEOUT_MS },
      logger: sdkLogger,
    });
    // Every request to the bucket, once the SDK's own retries are spent (they sit inside this
    // step): a bucket away or failing is the media store's outage, answered 503 with Retry-After.
    this.client.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } catch (err) {
          throw asOutage(err);
        }
      },
      { step: 'initialize', name: 'mediaStoreOutage' },
    );
  }

  private objectHeaders(rel: string) {
    return { Bucket: this.bucket, Key: rel, ContentType: contentTypeOf(rel), CacheControl: MEDIA_CACHE_CONTROL };
  }

  async put(rel: string, data: Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ ...this.objectHeaders(rel), Body: data, ContentLength: data.length }));
  }

  async putFile(rel: string, tmpPath: string): Promise<void> {
    const { size } = await fs.stat(tmpPath);
    if (size <= this.partSize) {
      await sendFile(
        () => createReadStream(tmpPath),
        (Body) => this.client.send(new PutObjectCommand({ ...this.objectHeaders(rel), Body, ContentLength: size })),
      );
      return;
    }
    await this.putInParts(rel, tmpPath, size);
  }

  /** A multipart upload, each part streamed from its range of the file; abandoned parts are aborted. */
  private async putInParts(rel: string, tmpPath: string, size: number): Promise<void> {
    const { UploadId } = await this.client.send(new CreateMultipartUploadCommand(this.objectHeaders(rel)));
    try {
      const parts: { ETag?: string; PartNumber: number }[] = [];
      for (let start = 0, n = 1; start < size; start += this.partSize, n++) {
        const end = Math.min(size, start + this.partSize);
        const part = await sendFile(
          () => createReadStream(tmpPath, { start, end: end - 1 }),
          (Body) => this.client.send(new UploadPartCommand({ Bucket: this.bucket, Key: rel, UploadId, PartNumber: n, Body, ContentLength: end - start })),
        );
        parts.push({ ETag: part.ETag, PartNumber: n });
      }
      await this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key: rel, UploadId, MultipartUpload: { Parts: parts } }));
    } catch (err) {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: rel, UploadId })).catch(() => {});
      throw err;
    }
  }

  async read(rel: string): Promise<Readable> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: rel }));
      return res.Body as Readable;
    } catch (err) {
      if (statusOf(err) === 404) throw missing(rel);
      throw err;
    }
  }

  /** An object for the media route: a byte range of it, or nothing new when the client's copy is current. */
  async fetch(rel: string, opts: { range?: string; ifNoneMatch?: string }): Promise<FetchedObject> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: rel, Range: opts.range, IfNoneMatch: opts.ifNoneMatch }));
      const body = res.Body as Readable;
      // A store that ignores If-None-Match still sends the ETag: the answer is the same.
      if (opts.ifNoneMatch && res.ETag && opts.ifNoneMatch === res.ETag) {
        body.destroy();
        return { status: 304, etag: res.ETag };
      }
      return {
        status: res.ContentRange ? 206 : 200,
        body,
        length: res.ContentLength,
        contentRange: res.ContentRange,
        etag: res.ETag,
        lastModified: res.LastModified,
      };
    } catch (err) {
      const status = statusOf(err);
      if (status === 304) return { status: 304, etag: opts.ifNoneMatch };
      if (status === 404 || status === 416) return { status };
      throw err;
    }
  }

  async delete(rel: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: rel }));
  }

  async exists(rel: string): Promise<boolean> {
    return (await this.stat(rel)) !== null;
  }

  async stat(rel: string): Promise<StoredFile | null> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: rel }));
      return { rel, size: res.ContentLength ?? 0, modifiedAt: res.LastModified?.getTime() ?? 0 };
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw err;
    }
  }

  async *list(): AsyncIterable<StoredFile> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, ContinuationToken: token }));
      for (const o of page.Contents ?? []) {
        if (o.Key) yield { rel: o.Key, size: o.Size ?? 0, modifiedAt: o.LastModified?.getTime() ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async withLocalFile<T>(rel: string, work: (file: string) => Promise<T>): Promise<T> {
    // Named for this process, so start-up clears it if the process dies while it is here.
    const copy = path.join(this.tmpDir, ownedName(`copy${path.extname(rel)}`));
    try {
      // The object's body comes after its request has answered: a connection lost on the way is an outage too.
      await pipeline(await this.read(rel), createWriteStream(copy)).catch((err) => {
        throw asOutage(err);
      });
      return await work(copy);
    } finally {
      await fs.rm(copy, { force: true });
    }
  }

  async check(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
