import { JsonWriter } from '../../core/json-bytes.ts';

/**
 * Danbooru's timestamps: ISO 8601 with milliseconds and `+00:00`. A page of 200 posts writes some
 * 500 of them; Date's toISOString and a replace made each a few allocations, so the day's text is
 * kept once per day and the time of day written from tables, into the page's bytes.
 */
const DAY = 86_400_000;
/** Past year 9999 ISO 8601 needs six digits and a sign: Date writes those. */
const LAST = 253_402_300_800_000;
const days = new Map<number, string>();
const TWO = Array.from({ length: 60 }, (_, i) => String(i).padStart(2, '0'));
const THREE = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0'));

export function danbooruTime(ms: number): string {
  const w = new JsonWriter(Buffer.allocUnsafe(32));
  writeDanbooruTime(w, ms);
  return w.buffer.toString('latin1', 0, w.at);
}

/** The time as danbooruTime gives it, written into `w` (a page of posts writes hundreds). */
export function writeDanbooruTime(w: JsonWriter, ms: number): void {
  if (!Number.isInteger(ms) || ms < 0 || ms >= LAST) {
    w.raw(new Date(ms).toISOString().replace('Z', '+00:00'));
    return;
  }
  const day = Math.floor(ms / DAY);
  let date = days.get(day);
  if (date === undefined) {
    // Bounded: a board's posts span some thousands of days.
    if (days.size >= 50_000) days.clear();
    date = new Date(day * DAY).toISOString().slice(0, 11);
    days.set(day, date);
  }
  let t = ms - day * DAY;
  const h = Math.floor(t / 3_600_000);
  t -= h * 3_600_000;
  const m = Math.floor(t / 60_000);
  t -= m * 60_000;
  const s = Math.floor(t / 1000);
  w.raw(date);
  w.raw(TWO[h]);
  w.raw(':');
  w.raw(TWO[m]);
  w.raw(':');
  w.raw(TWO[s]);
  w.raw('.');
  w.raw(THREE[t - s * 1000]);
  w.raw('+00:00');
}
