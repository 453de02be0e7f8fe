import { JsonWriter } from '../../core/json-bytes.ts';

/**
 * Danbooru's timestamps: ISO 8601 with milliseconds and `+00:00`. A page of 200 posts writes some
 * 500 of them; Date's toISOString and a replace made each a few allocations, so the day's text is
 * kept once per day (as bytes) and the time of day written digit by digit, into the page's bytes.
 */
const DAY = 86_400_000;
/** Past year 9999 ISO 8601 needs six digits and a sign: Date writes those. */
const LAST = 253_402_300_800_000;
/** Each day's `YYYY-MM-DDT` as bytes, made once a day seen. */
const days = new Map<number, Uint8Array>();
let lastDay = -1;
let lastDate: Uint8Array | undefined;
const ZERO = 0x30;
/** `+00:00`, after the milliseconds. */
const UTC = [0x2b, ZERO, ZERO, 0x3a, ZERO, ZERO];

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
  // A post's times are mostly of one day: the day last written is kept aside from the map.
  let date = day === lastDay ? lastDate : days.get(day);
  if (date === undefined) {
    // Bounded: a board's posts span some thousands of days.
    if (days.size >= 50_000) days.clear();
    date = Buffer.from(new Date(day * DAY).toISOString().slice(0, 11), 'latin1');
    days.set(day, date);
  }
  lastDay = day;
  lastDate = date;
  let t = ms - day * DAY;
  const h = Math.floor(t / 3_600_000);
  t -= h * 3_600_000;
  const m = Math.floor(t / 60_000);
  t -= m * 60_000;
  const s = Math.floor(t / 1000);
  t -= s * 1000;
  // The time of day digit by digit into the bytes: `HH:MM:SS.mmm+00:00` after the date.
  w.room(29);
  const b = w.buffer;
  let at = w.at;
  for (let i = 0; i < date.length; i++) b[at++] = date[i];
  at = twoDigits(b, at, h);
  b[at++] = 0x3a;
  at = twoDigits(b, at, m);
  b[at++] = 0x3a;
  at = twoDigits(b, at, s);
  b[at++] = 0x2e;
  const hundreds = Math.floor(t / 100);
  b[at++] = ZERO + hundreds;
  at = twoDigits(b, at, t - hundreds * 100);
  for (let i = 0; i < UTC.length; i++) b[at++] = UTC[i];
  w.at = at;
}

function twoDigits(b: Buffer, at: number, n: number): number {
  const tens = Math.floor(n / 10);
  b[at] = ZERO + tens;
  b[at + 1] = ZERO + n - tens * 10;
  return at + 2;
}
