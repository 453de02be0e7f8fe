import { MAP_ENTRY, stringBytes } from './heap-estimate.ts';

/**
 * Values worked out from the posts (totals, tag lookups, the title words of a term), kept per
 * process while the data version is the one they were read at: every upload, edit and delete
 * moves the `version` counter in the same transaction, so a value is never used after the data
 * it came from changed, whichever instance changed it. At most `max` values; the least recently
 * used goes first.
 */
export class VersionedMap<V> {
  private version = -1;
  private readonly values = new Map<string, V>();

  constructor(private readonly max: number) {}

  /** The value kept for `key` at `version` (a newer version drops everything kept). */
  get(key: string, version: number): V | undefined {
    if (version > this.version) {
      this.values.clear();
      this.version = version;
    }
    const value = version === this.version ? this.values.get(key) : undefined;
    if (value !== undefined) {
      this.values.delete(key); // most recently used goes last
      this.values.set(key, value);
    }
    return value;
  }

  /** Bytes held, estimated: a map entry and the key's text each, and each value as `valueBytes` estimates it. */
  bytes(valueBytes: (value: V) => number): number {
    let sum = 0;
    for (const [key, value] of this.values) sum += MAP_ENTRY + stringBytes(key) + valueBytes(value);
    return sum;
  }

  /** Keeps a value worked out at `version`, unless a request has seen newer data meanwhile. */
  set(key: string, value: V, version: number): void {
    if (version !== this.version) return;
    if (this.values.size >= this.max) this.values.delete(this.values.keys().next().value!);
    this.values.set(key, value);
  }
}
