import type { Kysely } from 'kysely';
import type { DB } from '../types.ts';

/** A content-addressed media file's name: its kind, two levels of folders, its sha256. */
const SHA_FILE = /^(originals|thumbs|previews)\/[0-9a-f]{2}\/[0-9a-f]{2}\/([0-9a-f]{64})\.\w+$/;

/**
 * The stored files of `rels` that nothing claims: a post's file is claimed by a post (or an upload
 * waiting for approval) with its sha256 (the name holds it), an avatar by a user who has it.
 */
export async function unclaimed(deps: { db: Kysely<DB> }, rels: string[]): Promise<Set<string>> {
  const shaOf = (rel: string) => SHA_FILE.exec(rel)?.[2] ?? null;
  const shas = rels.map(shaOf).filter((s): s is string => s !== null);
  const avatars = rels.filter((r) => r.startsWith('avatars/'));
  // An upload waiting for approval (pending_posts) claims its files as a post does.
  const claimed = async (table: 'posts' | 'pending_posts') =>
    (await deps.db.selectFrom(table).select('sha256').where('sha256', 'in', shas).execute()).map((r) => r.sha256);
  const known = new Set(shas.length ? [...(await claimed('posts')), ...(await claimed('pending_posts'))] : []);
  const usedAvatars = new Set(
    avatars.length ? (await deps.db.selectFrom('users').select('avatar_path').where('avatar_path', 'in', avatars).execute()).map((r) => r.avatar_path) : [],
  );
  return new Set(
    rels.filter((rel) => {
      const sha = shaOf(rel);
      return sha ? !known.has(sha) : !usedAvatars.has(rel);
    }),
  );
}
