import type { Actor } from '../../core/deps.ts';
import type { Db } from '../../db/engine.ts';

/** Every action the audit log records (the `action` filter of GET /api/audit accepts these). */
export const AUDIT_ACTIONS = [
  'user.role',
  'user.tier',
  'user.ban',
  'user.unban',
  'post.edit',
  'post.delete',
  'post.approve',
  'post.reject',
  'posts.bulk_tags',
  'comment.delete',
  'pool.edit',
  'pool.delete',
  'report.resolve',
  'report.dismiss',
  'tag.update',
  'tag_alias.create',
  'tag_alias.delete',
  'tag_implication.create',
  'tag_implication.delete',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export interface AuditEntry {
  action: AuditAction;
  /** `<kind>:<key>`: `user:<lowercase name>`, `post:<id>`, `comment:<id>`, `report:<id>`, `job:<id>` (a bulk tag edit), `pool:<id>`, `tag:<name>`, `tag_alias:<from>`, `tag_implication:<from>-><to>`. */
  target: string;
  details: Record<string, unknown>;
}

/**
 * Records an action. Called with the transaction that makes the change, so there is never a change
 * without its entry, nor an entry for a change rolled back.
 */
export async function recordAudit(trx: Db, by: Actor, at: number, entry: AuditEntry): Promise<void> {
  await trx
    .insertInto('audit_log')
    .values({
      actor_id: by.id,
      actor_name: by.username,
      action: entry.action,
      target: entry.target,
      details: JSON.stringify(entry.details),
      created_at: at,
    })
    .execute();
}

export interface AuditFilter {
  actorId?: number;
  action?: AuditAction;
  target?: string;
}

/** One page of entries, newest first, and how many match. */
export async function auditPage(db: Db, f: AuditFilter, limit: number, offset: number) {
  const matching = db
    .selectFrom('audit_log')
    .$if(f.actorId !== undefined, (q) => q.where('actor_id', '=', f.actorId!))
    .$if(f.action !== undefined, (q) => q.where('action', '=', f.action!))
    .$if(f.target !== undefined, (q) => q.where('target', '=', f.target!));
  const [rows, total] = await Promise.all([
    matching.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    matching.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

/** The id of the user of that name (any case), or undefined: the actor an audit filter names. */
export async function findActorId(db: Db, username: string): Promise<number | undefined> {
  const user = await db.selectFrom('users').select('id').where('username_lower', '=', username.toLowerCase()).executeTakeFirst();
  return user?.id;
}
