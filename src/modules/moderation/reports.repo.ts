import type { Db, Tx } from '../../db/engine.ts';
import type { ReportsTable } from '../../db/types.ts';

/** What a report is about: a post or a comment, by id. */
export type ReportTarget = { type: ReportsTable['target_type']; id: number };

const reportQuery = (db: Db) =>
  db
    .selectFrom('reports')
    .leftJoin('users as r', 'r.id', 'reports.reporter_id')
    .leftJoin('users as s', 's.id', 'reports.settled_by')
    .selectAll('reports')
    .select(['r.username as reporter', 's.username as settler']);

export type ReportRow = Awaited<ReturnType<ReturnType<typeof reportQuery>['executeTakeFirstOrThrow']>>;

/** The report with its reporter's and settler's names; throws when there is none. */
export function reportById(db: Db, id: number): Promise<ReportRow> {
  return reportQuery(db).where('reports.id', '=', id).executeTakeFirstOrThrow();
}

/** Whether the post or comment reported exists. */
export async function targetExists(db: Db, target: ReportTarget): Promise<boolean> {
  const table = target.type === 'post' ? 'posts' : 'comments';
  const exists = await db.selectFrom(table).select('id').where('id', '=', target.id).executeTakeFirst();
  return exists !== undefined;
}

/** The reporter's open report of the target (its id), or undefined. */
export function findOpenReport(db: Db, reporterId: number, t: ReportTarget) {
  return db
    .selectFrom('reports')
    .select('id')
    .where('reporter_id', '=', reporterId)
    .where('target_type', '=', t.type)
    .where('target_id', '=', t.id)
    .where('state', '=', 'open')
    .executeTakeFirst();
}

/** Adds an open report; its id. The unique index refuses a second open one of the same reporter and target. */
export async function insertReport(db: Db, reporterId: number, target: ReportTarget, reason: string, now: number): Promise<number> {
  const { id } = await db
    .insertInto('reports')
    .values({ reporter_id: reporterId, target_type: target.type, target_id: target.id, reason, state: 'open', created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** One page of the reports in a state, newest first, and how many there are in it. */
export async function reportsPage(db: Db, state: ReportsTable['state'], limit: number, offset: number) {
  const [rows, total] = await Promise.all([
    reportQuery(db).where('reports.state', '=', state).orderBy('reports.id', 'desc').limit(limit).offset(offset).execute(),
    db
      .selectFrom('reports')
      .where('state', '=', state)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(total.n) };
}

export interface Settling {
  state: 'resolved' | 'dismissed';
  note: string | null;
  settledBy: number;
  at: number;
}

/** Settles the report if it is open; what it was about, or undefined when it is not open (or not there). */
export function settleOpenReport(trx: Tx, id: number, s: Settling) {
  return trx
    .updateTable('reports')
    .set({ state: s.state, note: s.note, settled_by: s.settledBy, settled_at: s.at })
    .where('id', '=', id)
    .where('state', '=', 'open')
    .returning(['target_type', 'target_id', 'reason', 'reporter_id'])
    .executeTakeFirst();
}

/** The report's state, or undefined when there is no such report. */
export async function findReportState(trx: Tx, id: number) {
  return trx.selectFrom('reports').select('state').where('id', '=', id).executeTakeFirst();
}

/** The name of the user with that id, or undefined. */
export async function findUsername(trx: Tx, id: number): Promise<string | undefined> {
  const user = await trx.selectFrom('users').select('username').where('id', '=', id).executeTakeFirst();
  return user?.username;
}
