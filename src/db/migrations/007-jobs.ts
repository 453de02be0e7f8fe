import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../dialect.ts';

/**
 * jobs: long work (a backfill, a retag, a bulk edit) done in the background in bounded steps
 * (modules/jobs/). Each step commits its writes together with the job's cursor and counts, so a
 * job resumes where it stopped after a restart and no step's work is done twice.
 *
 * params and cursor are JSON text only the job's kind reads. A runner claims a job by writing its
 * name in lease_owner and a time in lease_until (epoch ms), and moves that time on with every
 * step; a running job whose lease_until has passed belongs to a runner that died, and another one
 * takes it over. created_by is null for jobs nobody asked for (the server's own) and when the
 * user is deleted.
 */
export async function up(db: Kysely<any>, dialect: DialectName): Promise<void> {
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'integer', (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey().generatedByDefaultAsIdentity()))
    .addColumn('kind', 'varchar(64)', (c) => c.notNull())
    .addColumn('state', 'varchar(8)', (c) => c.notNull().defaultTo('queued').check(sql`state IN ('queued', 'running', 'done', 'failed')`))
    .addColumn('params', 'text', (c) => c.notNull())
    .addColumn('cursor', 'text')
    .addColumn('done', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('total', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('error', 'text')
    .addColumn('created_by', 'integer', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('lease_owner', 'varchar(128)')
    .addColumn('lease_until', 'bigint')
    .execute();
  // Runners look for queued jobs and running ones whose lease has passed, oldest first; done and failed jobs stay for their creators to read.
  await db.schema.createIndex('jobs_state').on('jobs').columns(['state', 'id']).execute();
}
