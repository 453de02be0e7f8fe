import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { guardedLookup, publicAddress } from './target-address.ts';

/** What an attempt came to: the target's status (2xx: delivered), or why there was none. */
export type Attempt = { status: number; error: string | null } | { status: null; error: string };

/** The signature header's value: `sha256=` and the hex HMAC-SHA256 of the body with the webhook's secret. */
export const signature = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** The most of a target's answer read (the rest is dropped): it is only ever shown as an error. */
const ANSWER_BYTES = 1024;

/**
 * POSTs one delivery: the JSON body, signed. Resolves with the status, or with why there was none
 * (a refused or unreachable address, a timeout); never rejects.
 */
export function send(
  target: { url: string; secret: string },
  body: string,
  headers: Record<string, string>,
  o: { allowPrivate: boolean; timeoutMs: number },
): Promise<Attempt> {
  return new Promise((resolve) => {
    let u: URL;
    try {
      u = new URL(target.url);
    } catch {
      return resolve({ status: null, error: 'the URL is not valid' });
    }
    const host = u.hostname.replace(/^\[|\]$/g, '');
    // An address written in the URL is connected to without a lookup: checked here instead.
    if (!o.allowPrivate && net.isIP(host) && !publicAddress(host)) return resolve({ status: null, error: `${host} is not a public address` });
    const request = u.protocol === 'https:' ? https.request : http.request;
    const req = request(
      u,
      {
        method: 'POST',
        lookup: guardedLookup(o.allowPrivate),
        timeout: o.timeoutMs,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'imageboard-webhooks',
          'x-webhook-signature': signature(target.secret, body),
          ...headers,
        },
      },
      (res) => {
        let answer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (answer.length < ANSWER_BYTES) answer += chunk;
        });
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          resolve({ status, error: status >= 200 && status < 300 ? null : `answered ${status}${answer ? `: ${answer.slice(0, 200)}` : ''}` });
        });
        res.on('error', () => resolve({ status: res.statusCode ?? 0, error: 'the answer broke off' }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${o.timeoutMs / 1000} s`)));
    req.on('error', (err) => resolve({ status: null, error: err.message }));
    req.end(body);
  });
}
