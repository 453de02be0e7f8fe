// A bucket for tests: s3rver (a fake S3 server, objects on disk) on loopback, in a temp folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import type { Config, S3Settings } from '../src/config.ts';
import { S3MediaStore } from '../src/storage/s3.ts';

export interface TestBucket {
  settings: S3Settings;
  /** The bucket's public address (path-style), as MEDIA_PUBLIC_URL would name it. */
  publicUrl: string;
  /** The settings an operator would set, for commands. */
  env: Record<string, string>;
  /** A store on the bucket, for looking at and changing objects behind the board's back. */
  store: S3MediaStore;
  /** Every key in the bucket, sorted. */
  keys(): Promise<string[]>;
  /** Removes every object (a suite starts on an empty bucket). */
  empty(): Promise<void>;
  /** The s3rver behind it, to stop and start again (an outage). */
  server: TestS3rver;
  close(): Promise<void>;
}

export interface TestS3rver {
  /** Where it listens, with its keys; `bucket` is empty: each user names its own. */
  settings: S3Settings;
  createBucket(name: string): Promise<void>;
  /** Stops answering, as a bucket that went away: the port refuses connections, open ones are cut. The objects stay. */
  stop(): Promise<void>;
  /** Answers again after stop(), on the same port, with the same objects. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Starts s3rver, without buckets (fleet mode makes one a suite). */
export async function startS3rver(): Promise<TestS3rver> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-s3rver-'));
  let server: S3rver | null = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true });
  const { port } = await server.run();
  const stop = async () => {
    if (!server) return;
    const closed = server.close();
    server.httpServer?.closeAllConnections();
    await closed;
    server = null;
  };
  const settings: S3Settings = { endpoint: `http://127.0.0.1:${port}`, bucket: '', region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return {
    settings,
    createBucket: async (name) => void (await client.send(new CreateBucketCommand({ Bucket: name }))),
    stop,
    start: async () => {
      if (server) return;
      // A new instance: a stopped one has closed its logger. It reads the buckets from the folder.
      const again = new S3rver({ address: '127.0.0.1', port, directory, silent: true });
      await again.run();
      server = again;
    },
    close: async () => {
      client.destroy();
      await stop();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Starts s3rver with an empty bucket `name`. */
export async function startBucket(name = 'media'): Promise<TestBucket> {
  const server = await startS3rver();
  const settings: S3Settings = { ...server.settings, bucket: name };
  const endpoint = settings.endpoint;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ib-s3-tmp-'));
  const store = new S3MediaStore(settings, tmp);
  await server.createBucket(name);
  const keys = async () => {
    const out: string[] = [];
    for await (const f of store.list()) out.push(f.rel);
    return out.sort();
  };
  return {
    settings,
    publicUrl: `${endpoint}/${name}/`,
    env: {
      MEDIA_STORE: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: name,
      S3_REGION: settings.region,
      S3_ACCESS_KEY_ID: settings.accessKeyId,
      S3_SECRET_ACCESS_KEY: settings.secretAccessKey,
    },
    store,
    keys,
    empty: async () => {
      for (const key of await keys()) await store.delete(key);
    },
    server,
    close: async () => {
      await store.close();
      await server.close();
      fs.rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** Config overrides for a board whose media are in this bucket. */
export const inBucket = (bucket: TestBucket, more: Partial<Config> = {}): Partial<Config> => ({ mediaStore: 's3', s3: bucket.settings, ...more });
