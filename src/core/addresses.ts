import { BlockList, isIP } from 'node:net';

interface Range {
  address: string;
  prefix: number;
  family: 'ipv4' | 'ipv6';
}

/** An IPv4 address mapped into IPv6 (`::ffff:10.0.0.1`, as a dual-stack socket reports it) as IPv4. */
export function plainAddress(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? mapped[1]! : ip;
}

/** An IPv4 or IPv6 address, or a CIDR range of either (`10.0.0.0/8`, `2001:db8::/32`); null when it is neither. */
export function parseRange(text: string): Range | null {
  const parts = text.split('/');
  if (parts.length > 2) return null;
  const address = plainAddress(parts[0]!);
  const version = isIP(address);
  if (version === 0 || address.includes('%')) return null;
  const max = version === 4 ? 32 : 128;
  const bits = parts[1];
  if (bits !== undefined && !/^\d{1,3}$/.test(bits)) return null;
  const prefix = bits === undefined ? max : Number(bits);
  if (prefix > max) return null;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Whether `ip` is one of the addresses or in one of the ranges (each valid: checked when the key was made). */
export function addressAllowed(ip: string, ranges: readonly string[]): boolean {
  const list = new BlockList();
  for (const text of ranges) {
    const range = parseRange(text);
    if (range) list.addSubnet(range.address, range.prefix, range.family);
  }
  const plain = plainAddress(ip);
  const version = isIP(plain);
  return version !== 0 && list.check(plain, version === 4 ? 'ipv4' : 'ipv6');
}
