import net from 'node:net';

/** The subject an anonymous client is counted as: its IPv4 address, or its IPv6 /64 network. */
export function clientKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1];
  if (net.isIPv6(ip)) return `${expandV6(ip).slice(0, 4).join(':')}::/64`;
  return ip;
}

function expandV6(ip: string): string[] {
  const [head, tail = ''] = ip.split('%')[0].split('::');
  const a = head ? head.split(':') : [];
  const b = ip.includes('::') && tail ? tail.split(':') : [];
  const missing = 8 - a.length - b.length;
  return [...a, ...Array(ip.includes('::') ? missing : 0).fill('0'), ...b].map((h) => h.toLowerCase().replace(/^0+(?=.)/, ''));
}
