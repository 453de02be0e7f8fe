// Fleet mode of the test suite (TEST_FLEET): the PostgreSQL pass of every eachDatabase suite runs
// against several app instances on one database instead of one app, the way a load balancer in
// front of separate machines would see them. See docs/architecture.md, "Tests in fleet mode".
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { buildApp, type App, type AppOptions } from '../src/app.ts';
import type { Config } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { startS3rver, type TestS3rver } from './s3.ts';

export interface FleetShape {
  /** Instances, each with its own DATA_DIR. */
  instances: number;
  /** Processes per instance: apps that share the instance's DATA_DIR (as WORKERS processes do). */
  workers: number;
}

/** TEST_FLEET=procs: real server processes behind a proxy (test/procs.ts) instead of apps in this process. */
export function procsMode(value = process.env.TEST_FLEET): boolean {
  if (value?.trim() !== 'procs') return false;
  if (!process.env.TEST_DATABASE_URL || !process.env.REDIS_URL) {
    throw new Error('TEST_FLEET=procs needs TEST_DATABASE_URL and REDIS_URL: the instances share one PostgreSQL schema and Redis');
  }
  return true;
}

/** TEST_FLEET=2 (two instances) or 2x2 (two instances of two processes each); null when off or in procs mode. */
export function fleetShape(value = process.env.TEST_FLEET): FleetShape | null {
  if (!value || procsMode(value)) return null;
  const m = /^(\d+)(?:x(\d+))?$/.exec(value.trim());
  const instances = Number(m?.[1]);
  const workers = Number(m?.[2] ?? 1);
  if (!m || instances < 1 || workers < 1 || instances * workers < 2) {
    throw new Error(`TEST_FLEET=${value}: give instances, or instances x processes, e.g. 2 or 2x2 (at least two apps in all)`);
  }
  if (!process.env.TEST_DATABASE_URL || !process.env.REDIS_URL) {
    throw new Error('TEST_FLEET needs TEST_DATABASE_URL and REDIS_URL: the instances share one PostgreSQL schema and Redis');
  }
  return { instances, workers };
}

export const fleetLabel = (shape: FleetShape) => (shape.workers > 1 ? `${shape.instances}x${shape.workers}` : String(shape.instances));

// One s3rver per test file: started by the first fleet suite that needs it, stopped by a hook
// registered while tests are declared (a hook added from inside a running suite would stop it
// after that suite alone).
let s3rver: Promise<TestS3rver> | null = null;
let stopRegistered = false;
export function declareFleetFile(): void {
  if (stopRegistered) return;
  stopRegistered = true;
  after(async () => {
    const running = s3rver;
    s3rver = null;
    stopRegistered = false;
    await (await running)?.close();
  });
}
export const sharedS3rver = () => (s3rver ??= startS3rver());

export interface Fleet {
  /** "One address": inject() hands each request to the next app in turn. */
  app: App;
  apps: App[];
  /** Each app's own connection to the one schema (apps[i] uses databases[i]). */
  databases: Database[];
  /** One DATA_DIR per instance (apps of one instance share it). */
  dataDirs: string[];
  configs: Config[];
  /**
   * The first app's settings, as a test changes them while the apps run (`ctx.config.registration
   * = 'invite'`): a setting set here is set on every app, as an operator would on every instance.
   */
  config: Config;
  close(): Promise<void>;
}

/**
 * Starts the fleet on a migrated PostgreSQL schema. Every app gets a connection of its own, media
 * in a bucket of this suite, rate-limit counters in Redis under a prefix of this suite.
 */
export async function startFleet(
  shape: FleetShape,
  { url, schema, config, appOptions }: { url: string; schema: string; config: Config; appOptions: AppOptions },
): Promise<Fleet> {
  const server = await sharedS3rver();
  const bucket = schema.replace(/_/g, '-').toLowerCase();
  if (config.mediaStore !== 's3') await server.createBucket(bucket);
  const opened: { app?: App; database: Database }[] = [];
  const dataDirs = Array.from({ length: shape.instances }, () => fs.mkdtempSync(path.join(os.tmpdir(), 'imageboard-fleet-')));
  const configs: Config[] = [];
  try {
    for (let i = 0; i < shape.instances * shape.workers; i++) {
      const dataDir = dataDirs[Math.floor(i / shape.workers)];
      const instanceConfig: Config = {
        ...config,
        dataDir,
        // A suite that brings its own bucket (s3-media.test.ts) keeps it: it reads the bucket itself.
        mediaStore: 's3',
        s3: config.mediaStore === 's3' ? config.s3 : { ...server.settings, bucket },
        redisUrl: process.env.REDIS_URL!,
        redisPrefix: `imageboard-test:${schema}:`,
      };
      const database = await openDatabase({ url, dataDir, schema, migrations: 'check' });
      const slot: { app?: App; database: Database } = { database };
      opened.push(slot);
      slot.app = await buildApp(instanceConfig, { ...appOptions, database });
      configs.push(instanceConfig);
    }
  } catch (err) {
    await closeAll(opened, dataDirs);
    throw err;
  }
  const apps = opened.map((o) => o.app!);
  // Consecutive requests go to different instances first (0, 2, 1, 3 for 2x2), then to the other
  // process of the same instance, so a test's second request never sees the first one's DATA_DIR.
  const order = Array.from({ length: apps.length }, (_, i) => (i % shape.instances) * shape.workers + Math.floor(i / shape.instances));
  return {
    app: oneAddress(apps, order),
    apps,
    databases: opened.map((o) => o.database),
    dataDirs,
    configs,
    config: new Proxy(configs[0], {
      set(_target, key, value) {
        for (const c of configs) Reflect.set(c, key, value);
        return true;
      },
    }),
    close: () => closeAll(opened, dataDirs),
  };
}

async function closeAll(opened: { app?: App; database: Database }[], dataDirs: string[]): Promise<void> {
  for (const { app } of opened) await app?.close();
  for (const { database } of opened) await database.close();
  for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * The first app, except that inject() goes round robin over all of them and ready()/close() act
 * on every one. What a test reads from the app itself (deps, warmUp, listen) is the first app's.
 */
function oneAddress(apps: App[], order: number[]): App {
  let next = 0;
  const inject = (...args: unknown[]) => {
    const app = apps[order[next++ % order.length]];
    return (app.inject as (...a: unknown[]) => unknown)(...args);
  };
  const ready = async () => {
    for (const app of apps) await app.ready();
    return facade;
  };
  const close = async () => {
    for (const app of apps) await app.close();
  };
  const facade: App = new Proxy(apps[0], {
    get(target, prop) {
      if (prop === 'inject') return inject;
      if (prop === 'ready') return ready;
      if (prop === 'close') return close;
      const value = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return facade;
}
