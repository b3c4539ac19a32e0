// SQLite's write-ahead log checkpointed on a worker thread (adapters/db/wal-checkpointer.ts): the
// file gets the committed pages without the event loop's connection checkpointing, nothing
// committed is lost across a close and an open, `close` ends the thread, and PostgreSQL is left alone.
// The worker script is the built one (dist/): `npm test` builds before it runs the suites.
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createDatabase } from '../../adapters/db/database.js';
import { builtWorkerFile, FALLBACK_AUTOCHECKPOINT_PAGES, WalCheckpointer } from '../../adapters/db/wal-checkpointer.js';
import { openTestDatabase } from '../helpers/databases.js';

/** Polls `check` every 20 ms until it holds; fails after `ms`. */
async function eventually(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Writes `rows` rows of about 2 KB into `scratch` (a table of its own), one commit each. */
async function writeRows(knex: import('knex').Knex, rows: number): Promise<void> {
  await knex.raw('create table if not exists scratch (id integer primary key, body text)');
  for (let i = 0; i < rows; i++) await knex('scratch').insert({ body: 'x'.repeat(2_000) });
}

describe('WAL checkpoints off the event loop (SQLite)', () => {
  it('is built: the worker script is in dist/', () => {
    expect(builtWorkerFile(), 'run `npm run build` first').toMatch(/wal-checkpoint-worker\.js$/);
  });

  it("copies committed pages into the file while the event loop's connection never checkpoints", async () => {
    const t = await openTestDatabase('sqlite');
    try {
      const started = await t.db.checkpointOffThread({ intervalMs: 20 });
      expect(started).toBe(true);
      const [setting] = (await t.db.knex.raw('pragma wal_autocheckpoint')) as Array<{ wal_autocheckpoint: number }>;
      expect(setting?.wal_autocheckpoint).toBe(FALLBACK_AUTOCHECKPOINT_PAGES);
      const file = t.db.location;
      const before = statSync(file).size;
      // 200 commits of ~2 KB: far below the 1,000 pages that would make the connection checkpoint by itself.
      await writeRows(t.db.knex, 200);
      await eventually(() => statSync(file).size > before + 200 * 2_000);
      // The thread's report reaches this one after the file grew (a message between threads).
      await eventually(() => t.db.walCheckpointer()!.checkpoints > 0);
    } finally {
      await t.cleanup();
    }
  });

  it('starts once, and keeps every committed row across close and open', async () => {
    const t = await openTestDatabase('sqlite');
    try {
      expect(await t.db.checkpointOffThread({ intervalMs: 10 })).toBe(true);
      expect(await t.db.checkpointOffThread({ intervalMs: 10 })).toBe(false);
      await writeRows(t.db.knex, 300);
      await t.db.close();
      const again = createDatabase(t.options);
      try {
        const [row] = (await again.knex('scratch').count({ n: '*' })) as Array<{ n: number }>;
        expect(Number(row?.n)).toBe(300);
      } finally {
        await again.close();
      }
    } finally {
      await t.cleanup();
    }
  });

  it("close ends the thread's connection too: the last one to close removes the log", async () => {
    const t = await openTestDatabase('sqlite');
    try {
      await t.db.checkpointOffThread({ intervalMs: 10 });
      await writeRows(t.db.knex, 50);
      await eventually(() => t.db.walCheckpointer()!.checkpoints > 0);
      expect(existsSync(`${t.db.location}-wal`)).toBe(true);
      await t.db.close();
      expect(existsSync(`${t.db.location}-wal`)).toBe(false);
    } finally {
      await t.cleanup();
    }
  });

  it('starts nothing when the worker script is missing, and leaves the setting as it was', async () => {
    const t = await openTestDatabase('sqlite');
    try {
      const missing = join(t.options.dataDir!, 'no-such-worker.js');
      expect(WalCheckpointer.start(t.db.location, { workerFile: missing })).toBeUndefined();
      const [setting] = (await t.db.knex.raw('pragma wal_autocheckpoint')) as Array<{ wal_autocheckpoint: number }>;
      expect(setting?.wal_autocheckpoint).toBe(1_000);
    } finally {
      await t.cleanup();
    }
  });

  it('reports a thread that cannot open the file', async () => {
    const t = await openTestDatabase('sqlite');
    try {
      const failures: string[] = [];
      const checkpointer = WalCheckpointer.start(join(t.options.dataDir!, 'absent.sqlite'), { onFailure: (m) => failures.push(m) });
      expect(checkpointer).toBeDefined();
      await eventually(() => failures.length > 0);
      expect(failures[0]).toMatch(/checkpoint thread ended/);
      await checkpointer!.stop();
    } finally {
      await t.cleanup();
    }
  });
});

describe('WAL checkpoints off the event loop (PostgreSQL)', () => {
  it('does nothing on PostgreSQL', async () => {
    const t = await openTestDatabase('postgres');
    try {
      expect(await t.db.checkpointOffThread()).toBe(false);
      expect(t.db.walCheckpointer()).toBeUndefined();
    } finally {
      await t.cleanup();
    }
  });
});
