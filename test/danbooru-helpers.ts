import assert from 'node:assert/strict';

/** HTTP Basic credentials as Danbooru's clients send an API key. */
export const basic = (user: string, key: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}` });

/** A Danbooru-shaped error answer with this status. */
export function assertDanbooruError(res: { statusCode: number; json(): any }, status: number, error: string) {
  assert.equal(res.statusCode, status);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message', 'success']);
  assert.equal(body.success, false);
  assert.equal(body.error, error);
  assert.equal(typeof body.message, 'string');
}

/** Danbooru's timestamps. */
export const DANBOORU_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+00:00$/;
