// The settings of LeadFlow's SQLite connection (adapters/db/database.ts, createDatabase): the log
// (WAL), foreign keys, the wait for another process's write lock, and temporary b-trees in memory
// (no temporary files for sorts: database.ts says what that measured).
import { expect, it } from 'vitest';
import { openTestDatabase } from '../helpers/databases.js';

/** The value of a pragma on the Database's connection. */
async function pragma(knex: import('knex').Knex, name: string): Promise<unknown> {
  const [row] = (await knex.raw(`pragma ${name}`)) as Array<Record<string, unknown>>;
  return row ? Object.values(row)[0] : undefined;
}

it('opens SQLite in WAL mode, with foreign keys, a busy timeout and temporary b-trees in memory', async () => {
  const t = await openTestDatabase('sqlite');
  try {
    const { knex } = t.db;
    expect(await pragma(knex, 'journal_mode')).toBe('wal');
    expect(await pragma(knex, 'foreign_keys')).toBe(1);
    expect(await pragma(knex, 'busy_timeout')).toBe(5_000);
    // 2: MEMORY (0 is the build's default, a file).
    expect(await pragma(knex, 'temp_store')).toBe(2);
  } finally {
    await t.cleanup();
  }
});
