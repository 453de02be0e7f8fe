import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/engine.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { ping } from './health.repo.ts';

/** One thing the instance needs to serve: throws when it is not there. */
export type Check = () => Promise<void>;

export interface CheckResult {
  ok: boolean;
  ms: number;
  /** Why it failed, in general terms (the details go to the log, not to whoever asks). */
  error?: string;
}

export interface Readiness {
  status: 'ok' | 'not ready' | 'draining';
  checks: Record<string, CheckResult>;
  failing: string[];
}

/** A check that has not answered after this long counts as failed (a load balancer polls every few seconds). */
const CHECK_TIMEOUT_MS = 2000;

export const databaseCheck =
  (db: Database): Check =>
  async () => {
    await ping(db);
  };

/** The media store's own readiness check (MediaStore.check): the folder read and written on disk, the bucket reached in object storage. */
export const mediaCheck =
  (media: MediaStore): Check =>
  () =>
    media.check();

function withTimeout(check: Check): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([check(), late]).finally(() => clearTimeout(timer));
}

/**
 * Runs every check at once. A check that starts failing is logged at warn once, with its error;
 * its recovery at info; a steady state is not logged, however often a load balancer asks.
 */
export function readinessChecks(checks: Record<string, Check>, log: FastifyBaseLogger) {
  const failingBefore = new Set<string>();
  let draining = false;
  return {
    /** From now on /readyz answers 503 `draining`: the instance is stopping. */
    drain() {
      draining = true;
    },
    async run(): Promise<Readiness> {
      if (draining) return { status: 'draining', checks: {}, failing: [] };
      const entries = await Promise.all(
        Object.entries(checks).map(async ([name, check]): Promise<[string, CheckResult]> => {
          const started = performance.now();
          const ms = () => Math.round(performance.now() - started);
          try {
            await withTimeout(check);
            if (failingBefore.delete(name)) log.info({ check: name }, 'readiness: passes again');
            return [name, { ok: true, ms: ms() }];
          } catch (err) {
            const message = (err as Error).message;
            if (!failingBefore.has(name)) log.warn({ check: name, err: message }, 'readiness: check failed');
            failingBefore.add(name);
            return [name, { ok: false, ms: ms(), error: message.startsWith('no answer within') ? message : 'failed' }];
          }
        }),
      );
      const failing = entries.filter(([, r]) => !r.ok).map(([name]) => name);
      return { status: failing.length ? 'not ready' : 'ok', checks: Object.fromEntries(entries), failing };
    },
  };
}

export type ReadinessChecks = ReturnType<typeof readinessChecks>;
