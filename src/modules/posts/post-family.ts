import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import { badRequest } from '../../core/errors.ts';
import { toId } from '../../core/ids.ts';

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
export async function checkParent(trx: Kysely<DB>, postId: number | null, parentId: number): Promise<void> {
  if (parentId === postId) refuseParent('a post cannot be its own parent');
  const parent = await trx.selectFrom('posts').select('id').where('id', '=', parentId).executeTakeFirst();
  if (!parent) refuseParent(`post ${parentId} does not exist`);
  if (postId !== null && (await chainReaches(trx, parentId, postId))) {
    refuseParent(`post ${parentId} is a descendant of post ${postId}: that would make a cycle`);
  }
}

/** Whether the chain of parents above `from` (from's parent, its parent, ...) holds `target`. */
async function chainReaches(trx: Kysely<DB>, from: number, target: number): Promise<boolean> {
  // UNION (not UNION ALL) ends the walk even on a cycle left by older data.
  const found = await sql<{ id: number }>`WITH RECURSIVE chain(id) AS (
      SELECT parent_id FROM posts WHERE id = ${from}
      UNION SELECT p.parent_id FROM posts p JOIN chain c ON p.id = c.id
    ) SELECT id FROM chain WHERE id = ${target}`.execute(trx);
  return found.rows.length > 0;
}
