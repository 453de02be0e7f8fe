import { randomBytes } from 'node:crypto';
import sharp from 'sharp';
import { assertLoopback } from './load.ts';

/**
 * The upload scenario: a fresh account (POST /api/auth/register, session cookie), then `count`
 * small distinct PNGs made with sharp, uploaded one after another (multipart POST /api/upload);
 * each upload's latency is measured. The posts are deleted afterwards so the read dataset
 * stays as it was.
 */

export interface UploadResult {
  uploads: number;
  ok: number;
  errors: number;
  latencyMs: { p50: number; p99: number; max: number };
  uploadsPerSecond: number;
  statuses: Record<string, number>;
  /** Peak RSS summed over the server's processes while the uploads ran (set by the runner). */
  peakRssBytes?: number | null;
}

/** Distinct small PNGs: random pixels (fresh every run, so none is a duplicate of an earlier run's). */
export async function makePngs(count: number, size = 96): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const raw = randomBytes(size * size * 3);
    out.push(
      await sharp(raw, { raw: { width: size, height: size, channels: 3 } })
        .png()
        .toBuffer(),
    );
  }
  return out;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

/** POSTs JSON to an auth route (register, login) and gives the session cookie it sets. */
export async function signIn(origin: string, route: string, body: Record<string, string>, expect = 201): Promise<string> {
  const res = await fetch(`${origin}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${route} answered ${res.status}: ${text.slice(0, 300)}`);
  const cookie = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .find((c) => c.startsWith('ib_session='));
  if (!cookie) throw new Error(`${route} set no ib_session cookie`);
  return cookie;
}

const register = (origin: string) =>
  signIn(origin, '/api/auth/register', { username: `bench_${randomBytes(6).toString('hex')}`, password: randomBytes(12).toString('hex') });

export interface UploadTimes {
  /** Each upload's time, ms, in the order sent. */
  latencies: number[];
  statuses: Record<string, number>;
  /** Ids of the posts made. */
  created: string[];
  seconds: number;
}

/**
 * Uploads `pngs` one after another as the session `cookie`, each with the form `fields` besides
 * the file (e.g. tags); stops early once `until` (epoch ms) has passed.
 */
export async function timeUploads(origin: string, cookie: string, pngs: Buffer[], fields: Record<string, string> = {}, until = Infinity): Promise<UploadTimes> {
  assertLoopback(origin);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  const created: string[] = [];
  const started = performance.now();
  for (let i = 0; i < pngs.length && Date.now() < until; i++) {
    const form = new FormData();
    form.append('title', `bench upload ${i + 1}`);
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append('file', new Blob([new Uint8Array(pngs[i])], { type: 'image/png' }), `bench-${i + 1}.png`);
    const t = performance.now();
    let status = 'error';
    try {
      const res = await fetch(`${origin}/api/upload`, {
        method: 'POST',
        headers: { cookie },
        body: form,
        signal: AbortSignal.timeout(60_000),
      });
      const body = (await res.json().catch(() => null)) as { post?: { id?: string } } | null;
      status = String(res.status);
      if (res.status === 201 && body?.post?.id) created.push(body.post.id);
    } catch {
      // counted as an error by the caller
    }
    latencies.push(performance.now() - t);
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  return { latencies, statuses, created, seconds: (performance.now() - started) / 1000 };
}

/** Deletes the posts a run made, so the dataset stays as it was. */
export async function deletePosts(origin: string, cookie: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    await fetch(`${origin}/api/posts/${id}`, { method: 'DELETE', headers: { cookie }, signal: AbortSignal.timeout(30_000) })
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
  }
}

export function latencyStats(latencies: number[]): { p50: number; p99: number; max: number } {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? 0 };
}

export async function runUploads(origin: string, count: number): Promise<UploadResult> {
  assertLoopback(origin);
  let cookie: string;
  try {
    cookie = await register(origin);
  } catch (err) {
    const failed = { p50: 0, p99: 0, max: 0 };
    return {
      uploads: count,
      ok: 0,
      errors: count,
      latencyMs: failed,
      uploadsPerSecond: 0,
      statuses: { [`register failed: ${(err as Error).message}`]: count },
    };
  }
  const pngs = await makePngs(count);
  const run = await timeUploads(origin, cookie, pngs);
  await deletePosts(origin, cookie, run.created);
  return {
    uploads: pngs.length,
    ok: run.created.length,
    errors: pngs.length - run.created.length,
    latencyMs: latencyStats(run.latencies),
    uploadsPerSecond: pngs.length / Math.max(0.001, run.seconds),
    statuses: run.statuses,
  };
}
