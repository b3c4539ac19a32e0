// SQLite prepared statements reused by text (adapters/db/sqlite-statement-cache.ts): the same SQL is
// prepared once, the least recently used goes past the bound, and a Database on SQLite still reads
// what it writes (statements reused across queries and after a schema change).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { createDatabase } from '../../adapters/db/database.js';
import { cacheStatements } from '../../adapters/db/sqlite-statement-cache.js';

/** better-sqlite3 (no type declarations shipped): the part used here. */
interface Connection {
  prepare(sql: string): unknown;
  close(): void;
}
const Database = createRequire(import.meta.url)('better-sqlite3') as new (file: string) => Connection;

describe('cacheStatements', () => {
  it('prepares each text once, keeps the most recently used up to the bound', () => {
    const conn = new Database(':memory:');
    const prepared: string[] = [];
    const original = conn.prepare.bind(conn);
    conn.prepare = ((sql: string) => {
      prepared.push(sql);
      return original(sql);
    }) as typeof conn.prepare;
    cacheStatements(conn, 2);
    const one = conn.prepare('select 1 as n');
    expect(conn.prepare('select 1 as n')).toBe(one);
    conn.prepare('select 2 as n');
    conn.prepare('select 1 as n'); // used again: now the most recent
    conn.prepare('select 3 as n'); // past the bound: `select 2` goes
    conn.prepare('select 1 as n');
    conn.prepare('select 2 as n');
    expect(prepared).toEqual(['select 1 as n', 'select 2 as n', 'select 3 as n', 'select 2 as n']);
    expect((conn.prepare('select 2 as n') as { get(): unknown }).get()).toEqual({ n: 2 });
    conn.close();
  });

  it('a Database on SQLite reads what it writes with statements reused, also after a schema change', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leadflow-stmt-'));
    const db = createDatabase({ dataDir: dir });
    try {
      await db.knex.schema.createTable('probe', (t) => {
        t.increments('id');
        t.text('v');
      });
      for (const v of ['a', 'b', 'c']) await db.knex('probe').insert({ v });
      expect((await db.knex('probe').where({ v: 'b' }).select('v')).map((r: { v: string }) => r.v)).toEqual(['b']);
      await db.knex.schema.alterTable('probe', (t) => t.text('w'));
      await db.knex('probe').where({ v: 'b' }).update({ w: 'x' });
      expect(await db.knex('probe').where({ v: 'b' }).select('v', 'w')).toEqual([{ v: 'b', w: 'x' }]);
      expect(await db.knex('probe').select('*').orderBy('id')).toHaveLength(3);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
