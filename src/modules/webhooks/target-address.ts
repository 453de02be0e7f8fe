import dns from 'node:dns';
import net from 'node:net';

/**
 * Addresses a webhook may not reach unless WEBHOOK_ALLOW_PRIVATE is on: this host, private and
 * shared networks, link-local (cloud metadata at 169.254.169.254 among them), multicast and the
 * unspecified and reserved ranges, in IPv4 and IPv6, and IPv4 written inside IPv6.
 */
const BLOCKED = new net.BlockList();
for (const [net4, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  BLOCKED.addSubnet(net4, bits, 'ipv4');
}
for (const [net6, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const) {
  BLOCKED.addSubnet(net6, bits, 'ipv6');
}

/** Whether a webhook may be delivered to this address. */
export function publicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return !BLOCKED.check(mapped[1], 'ipv4');
    return !BLOCKED.check(address, 'ipv6');
  }
  return !BLOCKED.check(address, 'ipv4');
}

/** A target refused: the message says why. */
export class RefusedTarget extends Error {
  override name = 'RefusedTarget';
}

/**
 * net's `lookup` for a delivery's connection: resolves as usual, and fails when the name gives an
 * address that is not public, so the check holds for the address actually connected to (a name
 * that resolves to a public address when registered and a private one later is refused then).
 */
export function guardedLookup(allowPrivate: boolean): net.LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const list = addresses as dns.LookupAddress[];
      const refused = allowPrivate ? undefined : list.find((a) => !publicAddress(a.address));
      if (refused) return callback(new RefusedTarget(`${hostname} is ${refused.address}, not a public address`), '', 0);
      if ((options as dns.LookupOptions).all) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
      callback(null, list[0].address, list[0].family);
    });
  };
}

/** Checks a target before it is registered: the URL's form, and (unless allowed) that its host is a public address. Returns a reason to refuse, or null. */
export async function refusedTarget(url: string, allowPrivate: boolean): Promise<string | null> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'is not a URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be http:// or https://';
  if (u.username || u.password) return 'must not carry a user name or password';
  if (allowPrivate) return null;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  try {
    const addresses = net.isIP(host) ? [{ address: host }] : await dns.promises.lookup(host, { all: true });
    const bad = addresses.find((a) => !publicAddress(a.address));
    return bad ? `points to ${bad.address}, which is not a public address (WEBHOOK_ALLOW_PRIVATE)` : null;
  } catch {
    return `names a host that does not resolve (${host})`;
  }
}
