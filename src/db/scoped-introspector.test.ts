import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, databaseKinds } from '../../test/helpers.ts';
import type { Database } from './database.ts';

// PostgreSQL only: SQLite has one schema a file.
if (databaseKinds().includes('postgres')) {
  describe('PostgreSQL introspection stays in its own schema [postgres]', () => {
    let mine: { database: Database; cleanup(): Promise<void> };
    let other: { database: Database; cleanup(): Promise<void> };
    before(async () => {
      mine = await freshDatabase('postgres');
      other = await freshDatabase('postgres');
    });
    after(async () => {
      await mine.cleanup();
      await other.cleanup();
    });

    test("tables are listed from the connection's schema only, so schemas dropped meanwhile cannot break a migration", async () => {
      const tables = await mine.database.introspection.getTables({ withInternalKyselyTables: true });
      const schemas = new Set(tables.map((t) => t.schema));
      assert.equal(schemas.size, 1, `one schema, got ${[...schemas].join(', ')}`);
      const names = tables.map((t) => t.name);
      for (const name of ['posts', 'tags', 'kysely_migration']) assert.ok(names.includes(name), name);
      // Dropping the other run's schema while this one looks: nothing of it is read.
      await other.cleanup();
      other = { database: other.database, cleanup: async () => {} };
      assert.deepEqual((await mine.database.introspection.getTables()).map((t) => t.name).sort(), names.sort());
    });
  });
}
