/** Ids are opaque strings on the wire and positive integers inside; anything else is no id of ours. */
export function toId(raw: string): number | null {
  return /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : null;
}
