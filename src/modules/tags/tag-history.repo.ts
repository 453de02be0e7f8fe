import type { Kysely, Transaction } from 'kysely';
import type { Actor } from '../../core/deps.ts';
import type { DB, TagHistoryTable } from '../../db/types.ts';
import type { TagCategory } from '../../core/tag-categories.ts';
import { type AuditAction, recordAudit } from '../moderation/audit.repo.ts';

/** The fields a history entry keeps before and after a change: only those the change touched. */
export interface TagFields {
  name?: string;
  category?: TagCategory;
  description?: string;
  from?: string;
  to?: string;
}

export interface TagChange {
  kind: TagHistoryTable['kind'];
  action: TagHistoryTable['action'];
  /** The tag changed: the tag itself, an alias's target, an implication's antecedent. */
  tagId: number;
  /** The other tag the change names, which lists it too: an alias's own tag, an implication's consequent. */
  otherId?: number | null;
  before?: TagFields | null;
  after?: TagFields | null;
}

const json = (fields: TagFields | null | undefined) => (fields ? JSON.stringify(fields) : null);

/** The audit log's action and target of a change; every change here is a moderator's (or the command line's). */
async function auditOf(trx: Transaction<DB>, change: TagChange): Promise<{ action: AuditAction; target: string }> {
  const fields = { ...change.before, ...change.after };
  if (change.kind === 'alias') return { action: `tag_alias.${change.action}` as AuditAction, target: `tag_alias:${fields.from}` };
  if (change.kind === 'implication')
    return { action: `tag_implication.${change.action}` as AuditAction, target: `tag_implication:${fields.from}->${fields.to}` };
  const tag = await trx.selectFrom('tags').select('name').where('id', '=', change.tagId).executeTakeFirst();
  return { action: 'tag.update', target: `tag:${tag?.name ?? change.tagId}` };
}

/**
 * Records a change, in the tag's history and in the audit log, inside the transaction that makes
 * it, so there is never one without the other.
 */
export async function recordTagChange(trx: Transaction<DB>, by: Actor, at: number, change: TagChange): Promise<void> {
  await recordAudit(trx, by, at, { ...(await auditOf(trx, change)), details: { before: change.before ?? null, after: change.after ?? null } });
  await trx
    .insertInto('tag_history')
    .values({
      tag_id: change.tagId,
      other_id: change.otherId ?? null,
      kind: change.kind,
      action: change.action,
      user_id: by.id,
      before: json(change.before),
      after: json(change.after),
      created_at: at,
    })
    .execute();
}

/** One page of a tag's history (the changes to it and those naming it), newest first, and their number. */
export async function tagHistoryPage(db: Kysely<DB>, tagId: number, limit: number, offset: number) {
  const mine = db.selectFrom('tag_history').where((eb) => eb.or([eb('tag_history.tag_id', '=', tagId), eb('tag_history.other_id', '=', tagId)]));
  const [rows, total] = await Promise.all([
    mine
      .leftJoin('users', 'users.id', 'tag_history.user_id')
      .select(['tag_history.id', 'kind', 'action', 'before', 'after', 'tag_history.created_at', 'users.username'])
      .orderBy('tag_history.id', 'desc')
      .limit(limit)
      .offset(offset)
      .execute(),
    mine.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}
