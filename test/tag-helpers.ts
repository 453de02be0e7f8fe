import assert from 'node:assert/strict';
import type { Ctx } from './helpers.ts';
import { getJson } from './helpers.ts';
import { before } from 'node:test';
import { memberHeaders, register, setAccount, type Account } from './auth-helpers.ts';
import { multipart } from './multipart.ts';
import * as fx from './media-fixtures.ts';
import { jobDone } from './jobs.ts';

type Headers = Record<string, string>;

let seed = 100;

/** Uploads a fresh image with these comma-separated tags; returns the post id. */
export async function uploadTagged(ctx: Ctx, who: Account, tags: string): Promise<string> {
  const m = multipart({ tags }, [{ filename: 'a.png', data: await fx.png(seed++, 32, 24) }]);
  const res = await ctx.app.inject({ method: 'POST', url: '/api/upload', payload: m.payload, headers: { ...m.headers, ...who.headers } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().post.id;
}

export const editTags = (ctx: Ctx, who: Account, id: string, tags: string[] | string) =>
  ctx.app.inject({ method: 'PATCH', url: `/api/posts/${id}`, headers: who.headers, payload: { tags } });

export const patchTag = (ctx: Ctx, headers: Headers, name: string, payload: Record<string, unknown>) =>
  ctx.app.inject({ method: 'PATCH', url: `/api/tags/${encodeURIComponent(name)}`, headers, payload });

export const addAlias = (ctx: Ctx, headers: Headers, from: string, to: string) =>
  ctx.app.inject({ method: 'POST', url: '/api/tag-aliases', headers, payload: { from, to } });

export const imply = (ctx: Ctx, headers: Headers, from: string, to: string) =>
  ctx.app.inject({ method: 'POST', url: '/api/tag-implications', headers, payload: { from, to } });

export const unimply = (ctx: Ctx, headers: Headers, from: string, to: string) =>
  ctx.app.inject({ method: 'DELETE', url: `/api/tag-implications/${encodeURIComponent(from)}/${encodeURIComponent(to)}`, headers });

/** Makes an alias (asserted 201) and waits for the job that moves its posts, when there is one; returns the job, or null. */
export async function addAliasMoved(ctx: Ctx, headers: Headers, from: string, to: string) {
  const res = await addAlias(ctx, headers, from, to);
  assert.equal(res.statusCode, 201, res.body);
  const job = res.json().job;
  return job ? jobDone(ctx.app, job.id, headers) : null;
}

/** A post's tags and tag details as GET /api/posts/<id> gives them. */
export async function postTags(ctx: Ctx, id: string): Promise<{ tags: string[]; tagDetails: { name: string; category: string; postsCount: number }[] }> {
  const res = await getJson(ctx.app, `/api/posts/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { tags: res.body.tags, tagDetails: res.body.tagDetails };
}

/** GET /api/tags/<name>, asserted 200. */
export async function tagObject(ctx: Ctx, name: string) {
  const res = await getJson(ctx.app, `/api/tags/${encodeURIComponent(name)}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** The ids and total of a post list (any query string). */
export async function listed(ctx: Ctx, query: string): Promise<{ ids: string[]; total: number }> {
  // As a member without filters: every rating is listed.
  const res = await getJson(ctx.app, `/api/posts?${query}`, await memberHeaders(ctx.app));
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { ids: res.body.posts.map((p: { id: string }) => p.id), total: res.body.totalPosts };
}

/** A user, alice, and a moderator, mod, registered before the suite's tests (read them inside a test). */
export function userAndModerator(ctx: Ctx): { alice: Account; mod: Account } {
  const who = {} as { alice: Account; mod: Account };
  before(async () => {
    who.alice = await register(ctx.app, 'alice');
    who.mod = await register(ctx.app, 'mod');
    await setAccount(ctx.database, 'mod', { role: 'moderator' });
  });
  return who;
}
