import { PostgresDialect, sql, type DatabaseIntrospector, type Kysely, type SchemaMetadata, type TableMetadata } from 'kysely';

/**
 * PostgreSQL with table introspection limited to the connection's own schema. Kysely's migrator
 * asks for every table of the database, and its introspection calls pg_get_serial_sequence() on
 * every column of every schema: when another process drops a schema meanwhile (test runs, one
 * schema each, ending while others migrate), that call fails with `schema "..." does not exist`.
 * The migrator only needs to know whether its own tables exist in its own schema.
 */
export class ScopedPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new ScopedIntrospector(db);
  }
}

class ScopedIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<any>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const rows = await sql<{ name: string }>`SELECT nspname AS name FROM pg_catalog.pg_namespace`.execute(this.db);
    return rows.rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const rows = await sql<{ name: string; schema: string; isView: boolean }>`
      SELECT c.relname AS name, n.nspname AS schema, c.relkind = 'v' AS "isView"
      FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'v', 'p')`.execute(this.db);
    return rows.rows.map((r) => ({ ...r, columns: [] }));
  }

  async getMetadata() {
    return { tables: await this.getTables() };
  }
}
