import type { Command } from 'commander';
import type { Database } from '../../adapters/db/database.js';

/**
 * The database of DATABASE_URL (else SQLite under LEADFLOW_DATA_DIR, default ./data), migrated to
 * the latest schema. Applied migrations are reported on stderr.
 */
export async function openMigratedDatabase(
  env: Record<string, string | undefined> = process.env,
  err: NodeJS.WritableStream = process.stderr,
): Promise<Database> {
  const { databaseFromEnv } = await import('../../adapters/db/database.js');
  const db = databaseFromEnv(env);
  try {
    const applied = await db.migrate();
    for (const name of applied) err.write(`applied migration ${name}\n`);
    return db;
  } catch (e) {
    await db.close();
    throw e;
  }
}

/** Applies pending migrations; writes one line per applied migration (or that none was due) to `out`. */
export async function runMigrate(db: Database, out: NodeJS.WritableStream): Promise<string[]> {
  const applied = await db.migrate();
  if (applied.length === 0) out.write(`database is up to date (${db.dialect}: ${db.location})\n`);
  for (const name of applied) out.write(`applied ${name}\n`);
  return applied;
}

/**
 * `leadflow migrate`: applies the pending migrations to the database of DATABASE_URL (else SQLite
 * under LEADFLOW_DATA_DIR or ./data), one line per migration applied on stdout.
 */
export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('apply pending database migrations (DATABASE_URL, else SQLite under $LEADFLOW_DATA_DIR or ./data)')
    .action(async () => {
      const { databaseFromEnv } = await import('../../adapters/db/database.js');
      const db = databaseFromEnv();
      try {
        await runMigrate(db, process.stdout);
      } finally {
        await db.close();
      }
    });
}
