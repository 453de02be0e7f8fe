import { notFound } from './errors.ts';

/** Ids are opaque strings on the wire and positive integers inside; anything else is no id of ours. */
export function toId(raw: string): number | null {
  return /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : null;
}

/** The id in a path, or the 404 for `what` ("Post 'abc' not found"): a malformed id names nothing. */
export function parseId(raw: string, what: string): number {
  return toId(raw) ?? notFound(what, raw);
}
