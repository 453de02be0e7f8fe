import type { Config } from '../config.ts';
import type { Database } from '../db/engine.ts';
import type { MediaStore } from '../storage/media-store.ts';
import type { MetricsRecorder } from './metrics.ts';

export interface Clock {
  /** Epoch milliseconds. Tests move it instead of sleeping. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** What every service function gets: built once in buildApp. */
export interface Deps {
  db: Database;
  config: Config;
  clock: Clock;
  media: MediaStore;
  startedAt: number;
  /** What GET /metrics counts; absent while METRICS is off (and in the command line). */
  metrics?: MetricsRecorder;
}

/** The signed-in user behind a request (session or API key), or null for anonymous. */
export interface Viewer {
  id: number;
  username: string;
  role: 'user' | 'moderator' | 'admin';
  tier: 'free' | 'basic' | 'pro' | 'enterprise';
}

/**
 * Who makes a change: a signed-in viewer, or the command line run without an account (id and
 * username null; the change is recorded as made by nobody in particular).
 */
export interface Actor {
  id: number | null;
  username: string | null;
  role: Viewer['role'];
}

/** The command line run without an account: acts as an admin, recorded as nobody in particular. */
export const COMMAND_LINE: Actor = { id: null, username: null, role: 'admin' };

declare module 'fastify' {
  interface FastifyRequest {
    viewer: Viewer | null;
  }
}
