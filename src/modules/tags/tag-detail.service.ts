import type { Deps, Viewer } from '../../core/deps.ts';
import { badRequest, notFound } from '../../core/errors.ts';
import { assertModerator } from '../../core/policy.ts';
import { iso } from '../../core/schemas.ts';
import { bumpVersion } from '../../db/counters.ts';
import { renameInTagStrings } from '../posts/posts.retag.ts';
import { aliasesOf, tagOfName } from './tag-aliases.repo.ts';
import type { TagCategory } from './tag-categories.ts';
import type { TagPatch } from './tag-detail.schemas.ts';
import { tagImplications } from './tag-implications.repo.ts';
import { newTagName, normalizeTagName } from './tag-name-rules.ts';

/** A name as asked for in a path: the tag rules' form of it (an unusable name is no tag: 404). */
function asked(raw: string): string {
  const r = normalizeTagName(raw);
  return r.ok ? r.name : notFound('Tag', raw);
}

/** GET /api/tags/<name>: the tag, or the tag an alias name stands for. */
export async function getTag(deps: Deps, rawName: string) {
  const tag = (await tagOfName(deps.db, asked(rawName))) ?? notFound('Tag', rawName);
  const [aliases, implications] = await Promise.all([aliasesOf(deps.db, tag.id), tagImplications(deps.db, tag.id)]);
  return {
    name: tag.name,
    category: tag.category as TagCategory,
    postsCount: tag.post_count,
    description: tag.description,
    aliases,
    ...implications,
    createdAt: iso(tag.created_at),
  };
}

/**
 * PATCH /api/tags/<name> (moderators): category, description, name. A rename keeps the tag (its
 * id, posts and aliases) and leaves the old name as an alias of it; the posts' tag strings are
 * rewritten in the same transaction.
 */
export async function patchTag(deps: Deps, viewer: Viewer, rawName: string, patch: TagPatch) {
  assertModerator(viewer, 'change a tag');
  let rename: string | undefined;
  if (patch.name !== undefined) {
    const r = newTagName(patch.name);
    rename = r.ok ? r.name : badRequest(`field 'name': ${r.reason}`, [{ field: 'name', message: r.reason }]);
  }
  const name = await deps.db.transaction().execute(async (trx) => {
    const tag = (await tagOfName(trx, asked(rawName))) ?? notFound('Tag', rawName);
    const now = deps.clock.now();
    if (rename !== undefined && rename !== tag.name) {
      const taken = await tagOfName(trx, rename);
      if (taken) {
        const message = taken.name === rename ? `'${rename}' is already a tag` : `'${rename}' is already an alias of '${taken.name}'`;
        badRequest(`field 'name': ${message}`, [{ field: 'name', message }]);
      }
      await trx.updateTable('tags').set({ name: rename }).where('id', '=', tag.id).execute();
      await trx.insertInto('tag_aliases').values({ from_name: tag.name, tag_id: tag.id, creator_id: viewer.id, created_at: now }).execute();
      await renameInTagStrings(trx, tag.id, tag.name, rename, now);
    }
    if (patch.category !== undefined || patch.description !== undefined) {
      await trx
        .updateTable('tags')
        .set({
          ...(patch.category !== undefined ? { category: patch.category } : {}),
          ...(patch.description !== undefined ? { description: patch.description } : {}),
        })
        .where('id', '=', tag.id)
        .execute();
    }
    await bumpVersion(trx);
    return rename ?? tag.name;
  });
  return getTag(deps, name);
}
