import type { Db } from '../../db/engine.ts';
import { badRequest } from '../../core/errors.ts';
import { toId } from '../../core/ids.ts';
import { findPostId, parentChainHas } from './posts.repo.ts';

export const MAX_SOURCE = 1024;

/** A source as given (upload field or edit): an http(s) URL of at most MAX_SOURCE characters; empty or null is none. */
export function parseSource(raw: string | null): string | null {
  const text = raw?.trim() ?? '';
  if (text === '') return null;
  const refuse = (message: string) => badRequest(`field 'source' ${message}`, [{ field: 'source', message }]);
  if (text.length > MAX_SOURCE) refuse(`must be at most ${MAX_SOURCE} characters`);
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') refuse('must be an http or https URL');
  return text;
}

/** A parent id as given: a post id, or empty or null for none. */
export function parseParentId(raw: string | null): number | null {
  const text = raw?.trim() ?? '';
  if (text === '') return null;
  return toId(text) ?? badRequest("field 'parentId' must be a post id", [{ field: 'parentId', message: 'must be a post id' }]);
}

const refuseParent = (message: string): never => badRequest(`field 'parentId': ${message}`, [{ field: 'parentId', message }]);

/**
 * Refuses (400, field parentId) a parent that is no post, the post itself, or a post whose own
 * chain of parents reaches the post (a cycle). `postId` is null for a post being uploaded.
 */
export async function checkParent(trx: Db, postId: number | null, parentId: number): Promise<void> {
  if (parentId === postId) refuseParent('a post cannot be its own parent');
  const parent = await findPostId(trx, parentId);
  if (!parent) refuseParent(`post ${parentId} does not exist`);
  if (postId !== null && (await parentChainHas(trx, parentId, postId))) {
    refuseParent(`post ${parentId} is a descendant of post ${postId}: that would make a cycle`);
  }
}
