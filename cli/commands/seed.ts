import type { Command } from 'commander';
import type { SeedReport } from '../../adapters/db/seed.js';
import { UsageError } from '../usage-error.js';
import { openMigratedDatabase } from './migrate.js';

const KIND_WIDTH = 'protocol'.length;

/** One line per clinic, protocol and instance with what happened to it, then the totals. */
export function formatSeedReport(report: SeedReport): string {
  const lines = report.items.map((i) => {
    const clinic = i.clinica_id !== undefined ? ` (clinic ${i.clinica_id})` : '';
    return `${i.kind.padEnd(KIND_WIDTH)} ${JSON.stringify(i.nome)} id ${i.id}${clinic}: ${i.action}`;
  });
  lines.push(`${report.inserted} inserted, ${report.updated} updated, ${report.unchanged} unchanged`);
  return `${lines.join('\n')}\n`;
}

/**
 * `leadflow seed FILE`: upserts the clinics, protocols and instances of a YAML or JSON file in one
 * transaction and prints what happened to each. An unreadable file is a UsageError (exit 2); an
 * invalid one prints its problems, changes nothing and exits 1.
 */
export function registerSeed(program: Command): void {
  program
    .command('seed')
    .description('upsert clinics, protocols and instances from a YAML or JSON file, in one transaction; a bad file changes nothing')
    .argument(
      '<file>',
      'seed file: clinicas: [{nome, endereco, posicionamento, hunter_nome, hunter_telefone, admin_telefones, horario_atendimento, agenda, protocolos, instancias}]',
    )
    .action(async (file: string) => {
      const [{ readSeedFile, seedDatabase }, { formatSeedProblem, SeedFileUnreadableError, SeedValidationError }] = await Promise.all([
        import('../../adapters/db/seed.js'),
        import('../../adapters/db/seed-validation-error.js'),
      ]);
      let data: unknown;
      try {
        data = readSeedFile(file);
      } catch (err) {
        if (err instanceof SeedFileUnreadableError) throw new UsageError(err.message);
        if (!(err instanceof SeedValidationError)) throw err;
        for (const problem of err.problems) process.stdout.write(`${formatSeedProblem(problem)}\n`);
        process.stderr.write(`${err.problems.length} problem(s); nothing was changed\n`);
        process.exitCode = 1;
        return;
      }
      const db = await openMigratedDatabase();
      try {
        process.stdout.write(formatSeedReport(await seedDatabase(db, data)));
      } finally {
        await db.close();
      }
    });
}
