import type { Deps, Viewer } from '../../core/deps.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import { parseId } from '../../core/ids.ts';
import { assertOwnerOrModerator } from '../../core/policy.ts';
import { iso, type Rating } from '../../core/schemas.ts';
import { plainTags } from '../tags/tag-name-rules.ts';
import type { RevertBody } from './post-history.schemas.ts';
import { unchangedPost, type VersionRow, versionsOf } from './post-versions.repo.ts';
import { findPostId, findPostUploader } from './posts.repo.ts';
import { changePost } from './posts.edit.ts';
import { getPost } from './post-detail.ts';
import { fromTagString } from './tag-string.ts';

/** A post's versions, oldest first: its row as version 1 while it has none (never changed). */
async function versionRows(deps: Deps, id: number, rawId: string): Promise<VersionRow[]> {
  const rows = await versionsOf(deps.db, id);
  if (rows.length) return rows;
  const unchanged = await unchangedPost(deps.db, id);
  return unchanged ? [unchanged] : notFound('Post', rawId);
}

/** GET /api/posts/<id>/history. */
export async function postHistory(deps: Deps, rawId: string) {
  const id = parseId(rawId, 'Post');
  const rows = await versionRows(deps, id, rawId);
  return {
    versions: rows.map((v) => ({
      version: v.version,
      editor: v.editor,
      createdAt: iso(v.created_at),
      title: v.title,
      tags: fromTagString(v.tag_string),
      contentRating: v.content_rating as Rating,
      source: v.source,
      parentId: v.parent_id === null ? null : String(v.parent_id),
    })),
  };
}

/**
 * POST /api/posts/<id>/revert: the post takes version N's fields again, through the edit path
 * (tags with their counts and the search's sets; a new version when anything changed). A parent
 * deleted since is dropped; tags implied now are added.
 */
export async function revertPost(deps: Deps, viewer: Viewer, rawId: string, body: RevertBody) {
  const id = parseId(rawId, 'Post');
  const post = (await findPostUploader(deps.db, id)) ?? notFound('Post', rawId);
  assertOwnerOrModerator(viewer, post.uploader_id, 'post');
  const target = (await versionRows(deps, id, rawId)).find((v) => v.version === body.version);
  if (!target) badRequest(`field 'version': post ${rawId} has no version ${body.version}`, [{ field: 'version', message: `no version ${body.version}` }]);
  const v = target!;
  const parentGone = v.parent_id !== null && !(await findPostId(deps.db, v.parent_id));
  await deps.db.transaction().execute((trx) =>
    changePost(trx, deps, viewer, id, rawId, {
      title: v.title,
      contentRating: v.content_rating,
      source: v.source,
      parentId: parentGone ? null : v.parent_id,
      tags: plainTags(fromTagString(v.tag_string)),
      keepImplied: true,
      audit: { revert: body.version },
    }),
  );
  return getPost(deps, rawId, viewer);
}
