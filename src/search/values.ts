/**
 * Metatag values as typed sets: number ranges (`>N`, `A..B`, `a,b,c`), sizes, dates and ages.
 * Each parser throws a message for QueryError; the caller adds the position.
 */
import type { Interval } from './expr.ts';

export class ValueError extends Error {}

const fail = (message: string): never => {
  throw new ValueError(message);
};

/** One number of a range, in the column's unit; null when the text is not one. */
type Unit = (text: string) => number | null;

const INTEGER = /^\d{1,15}$/;
export const integer: Unit = (t) => (INTEGER.test(t) ? Number(t) : null);

const DECIMAL = /^\d{1,15}(\.\d{1,6})?$/;
export const decimal: Unit = (t) => (DECIMAL.test(t) ? Number(t) : null);

const SIZE = /^(\d{1,15}(?:\.\d{1,6})?)(b|kb|k|mb|m|gb|g)?$/;
const SIZE_UNITS: Record<string, number> = { b: 1, k: 1024, kb: 1024, m: 1024 ** 2, mb: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3 };
/** Bytes, with an optional kb/mb/gb suffix (1,024 based); whole bytes. */
export const bytes: Unit = (t) => {
  const m = SIZE.exec(t);
  return m ? Math.round(Number(m[1]) * SIZE_UNITS[m[2] ?? 'b']) : null;
};

/**
 * A range over values each of which covers a span (a day for a date; a single value for a
 * number, whose span is [v, v]): `v` (the span), `>v`, `>=v`, `<v`, `<=v`, `a..b` (from a's
 * start to b's end), `a..`, `..b`, or a list `a,b,c` of such values.
 */
export function parseRange(text: string, span: (t: string) => Interval | null, what: string): Interval[] {
  const value = (t: string): Interval => span(t) ?? fail(`'${t}' is not ${what}`);
  if (text === '') fail(`a value is missing: expected ${what}`);
  const cmp = /^(>=|<=|>|<)(.*)$/.exec(text);
  if (cmp) {
    const v = value(cmp[2]);
    switch (cmp[1]) {
      case '>':
        return [{ lo: v.hi, hi: Infinity, loOpen: true }];
      case '>=':
        return [{ lo: v.lo, hi: Infinity, loOpen: v.loOpen }];
      case '<':
        return [{ lo: -Infinity, hi: v.lo, hiOpen: true }];
      default:
        return [{ lo: -Infinity, hi: v.hi, hiOpen: v.hiOpen }];
    }
  }
  const dots = text.indexOf('..');
  if (dots >= 0) {
    const a = text.slice(0, dots);
    const b = text.slice(dots + 2);
    if (a === '' && b === '') fail(`'..' needs a bound on at least one side: expected ${what}`);
    const from = a === '' ? { lo: -Infinity } : value(a);
    const to = b === '' ? { hi: Infinity } : value(b);
    if (from.lo > to.hi) fail(`the range ${text} is empty: its start is after its end`);
    return [{ lo: from.lo, hi: to.hi, loOpen: 'loOpen' in from ? from.loOpen : undefined, hiOpen: 'hiOpen' in to ? to.hiOpen : undefined }];
  }
  if (text.includes(',')) return text.split(',').map((t) => value(t));
  return [value(text)];
}

/** A range of plain numbers in a unit. */
export function numberRange(text: string, unit: Unit, what: string): Interval[] {
  return parseRange(
    text,
    (t) => {
      const n = unit(t);
      return n === null ? null : { lo: n, hi: n };
    },
    what,
  );
}

const DAY = 86_400_000;

/**
 * A UTC date as the span of time it names: `YYYY-MM-DD` (that day), `YYYY-MM` (that month),
 * `YYYY` (that year), `today`, `yesterday`. Ms since the epoch; the end is the span's last ms.
 */
export function dateSpan(text: string, now: number): Interval | null {
  const today = Math.floor(now / DAY) * DAY;
  if (text === 'today') return { lo: today, hi: today + DAY - 1 };
  if (text === 'yesterday') return { lo: today - DAY, hi: today - 1 };
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$/.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = m[2] === undefined ? undefined : Number(m[2]) - 1;
  const day = m[3] === undefined ? undefined : Number(m[3]);
  if (month !== undefined && (month < 0 || month > 11)) return null;
  if (month === undefined) return { lo: Date.UTC(year, 0, 1), hi: Date.UTC(year + 1, 0, 1) - 1 };
  if (day === undefined) return { lo: Date.UTC(year, month, 1), hi: Date.UTC(year, month + 1, 1) - 1 };
  const start = Date.UTC(year, month, day);
  // 2026-02-30 would roll over into March: not a date.
  if (new Date(start).getUTCDate() !== day) return null;
  return { lo: start, hi: start + DAY - 1 };
}

const AGE = /^(\d{1,9})(h|d|w|mo|y)$/;
const AGE_UNITS: Record<string, number> = { h: 3_600_000, d: DAY, w: 7 * DAY, mo: 30 * DAY, y: 365 * DAY };

/** A duration such as `7d`, in ms (units h, d, w, mo = 30 days, y = 365 days). */
export function ageMs(text: string): number | null {
  const m = AGE.exec(text);
  return m ? Number(m[1]) * AGE_UNITS[m[2]] : null;
}

/**
 * `age:` as a range of creation times: `age:<7d` is newer than 7 days ago, `age:>1y` older than
 * a year, `age:2d..1w` between the two, and a bare `age:3d` the same as `<=3d`.
 */
export function ageRange(text: string, now: number): Interval[] {
  const what = 'an age such as 12h, 7d, 2w, 3mo or 1y';
  const bare = ageMs(text);
  const ranges = numberRange(bare === null ? text : `<=${text}`, ageMs, what);
  // An age of a ms is a creation time a ms further back: bounds swap sides.
  return ranges.map((r) => ({ lo: now - r.hi, hi: now - r.lo, loOpen: r.hiOpen, hiOpen: r.loOpen }));
}
