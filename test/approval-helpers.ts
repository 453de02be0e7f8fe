import assert from 'node:assert/strict';
import type { App } from '../src/app.ts';
import type { Account } from './auth-helpers.ts';
import { multipart } from './multipart.ts';
import * as fx from './media-fixtures.ts';

type Headers = Record<string, string>;

let seed = 7000;

/** Uploads a fresh image (or `data`) with these comma-separated tags; the raw answer. */
export async function upload(app: App, who: Account, tags: string, data?: Buffer) {
  const m = multipart({ tags, title: `upload ${tags}` }, [{ filename: 'a.png', data: data ?? (await fx.png(seed++, 32, 24)) }]);
  return app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...who.headers } });
}

/** Uploads and asserts 201; the post id and whether it waits for approval. */
export async function uploaded(app: App, who: Account, tags: string, data?: Buffer): Promise<{ id: string; pending: boolean }> {
  const res = await upload(app, who, tags, data);
  assert.equal(res.statusCode, 201, res.body);
  return { id: res.json().post.id, pending: res.json().post.pending === true };
}

export const approve = (app: App, headers: Headers, id: string) => app.inject({ method: 'POST', url: `/api/posts/${id}/approve`, headers });

export const reject = (app: App, headers: Headers, id: string, payload: unknown = {}) =>
  app.inject({ method: 'POST', url: `/api/posts/${id}/reject`, headers, payload: payload as object });

export const pendingQueue = (app: App, headers: Headers, query = '') => app.inject({ method: 'GET', url: `/api/moderation/pending${query}`, headers });
