/**
 * Open event streams by member and by address, on this process: a stream is taken before it opens
 * and given back when it ends. A stream held past a limit is refused (429), not queued.
 */
export class StreamCounts {
  private readonly byUser = new Map<number, number>();
  private readonly byIp = new Map<string, number>();

  constructor(
    private readonly perUser: number,
    private readonly perIp: number,
  ) {}

  /** Takes a stream for this member (null: a visitor) and address; null when either is at its limit. Call the function returned once, when it ends. */
  take(userId: number | null, ip: string): (() => void) | null {
    if (userId !== null && (this.byUser.get(userId) ?? 0) >= this.perUser) return null;
    if ((this.byIp.get(ip) ?? 0) >= this.perIp) return null;
    if (userId !== null) this.byUser.set(userId, (this.byUser.get(userId) ?? 0) + 1);
    this.byIp.set(ip, (this.byIp.get(ip) ?? 0) + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      if (userId !== null) drop(this.byUser, userId);
      drop(this.byIp, ip);
    };
  }
}

function drop<K>(map: Map<K, number>, key: K): void {
  const n = (map.get(key) ?? 1) - 1;
  if (n <= 0) map.delete(key);
  else map.set(key, n);
}
