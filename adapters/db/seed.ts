// `leadflow seed`: upserts clinics, their protocols and their WhatsApp instances. A clinic is matched
// by `nome`, a protocol or instance by `nome` within its clinic. The whole data is validated first
// (an instance's (provider, external_id) also against the stored instances of other clinics) and
// applied in one transaction: invalid data changes nothing, and its error lists every problem.
// An instance's columns are written as the file gives them: an absent `provider` is `uazapi`, an
// absent `external_id`, `app_secret`, `verify_token` or `templates` is null.
import { readFileSync } from 'node:fs';
import { YamlSource } from '../../engine/load/yaml-source.js';
import type { Database } from './database.js';
import { normalizeSeed, seedProblems, whoseInstance, type SeedData } from './seed-schema.js';
import { SeedFileUnreadableError, SeedValidationError, type SeedProblem } from './seed-validation-error.js';
import type { Row } from './table-ops.js';

/** What seeding did to one row: inserted it, updated it, or found it as the file says. */
export type SeedAction = 'inserted' | 'updated' | 'unchanged';

/** One row a seed touched or found, by kind and name, with its id and what was done. */
export interface SeedItem {
  kind: 'clinic' | 'protocol' | 'instance';
  nome: string;
  id: number;
  /** The clinic of a protocol or instance. */
  clinica_id?: number;
  action: SeedAction;
}

/** What one seed did: every row, and how many were inserted, updated and unchanged. */
export interface SeedReport {
  items: SeedItem[];
  inserted: number;
  updated: number;
  unchanged: number;
}

/** Validates `data` (throws SeedValidationError listing every problem) and applies it in one transaction. */
export async function seedDatabase(db: Database, data: unknown): Promise<SeedReport> {
  const problems = seedProblems(data);
  if (problems.length > 0) throw new SeedValidationError(problems);
  const seed = normalizeSeed(data);
  const items = await db.transaction(async (tx) => {
    const taken = await externalIdsTaken(tx, seed);
    if (taken.length > 0) throw new SeedValidationError(taken);
    const out: SeedItem[] = [];
    for (const clinic of seed.clinicas) {
      const { protocolos, instancias, ...fields } = clinic;
      const c = await upsertOne(tx, 'clinicas_com_atendentes', fields, ['nome']);
      const clinicaId = Number(c.row.id);
      out.push({ kind: 'clinic', nome: clinic.nome, id: clinicaId, action: c.action });
      for (const protocol of protocolos) {
        const p = await upsertOne(tx, 'protocolos', { ...protocol, clinica_id: clinicaId }, ['clinica_id', 'nome']);
        out.push({ kind: 'protocol', nome: protocol.nome, id: Number(p.row.id), clinica_id: clinicaId, action: p.action });
      }
      for (const instance of instancias) {
        const n = await upsertOne(tx, 'instancias_whatsapp', { ...instance, clinica_id: clinicaId }, ['clinica_id', 'nome']);
        out.push({ kind: 'instance', nome: instance.nome, id: Number(n.row.id), clinica_id: clinicaId, action: n.action });
      }
    }
    return out;
  });
  const count = (action: SeedAction) => items.filter((i) => i.action === action).length;
  return { items, inserted: count('inserted'), updated: count('updated'), unchanged: count('unchanged') };
}

/**
 * Instances of the file whose (provider, external_id) a stored instance of another clinic or name
 * already has: an inbound event must find exactly one instance (the unique index of migration 011).
 */
async function externalIdsTaken(tx: Database, seed: SeedData): Promise<SeedProblem[]> {
  const problems: SeedProblem[] = [];
  for (const [i, clinic] of seed.clinicas.entries()) {
    for (const [j, instance] of clinic.instancias.entries()) {
      if (instance.external_id === null) continue;
      const rows = await tx.find('instancias_whatsapp', { where: { provider: instance.provider, external_id: instance.external_id } });
      for (const row of rows) {
        const owner = await tx.get('clinicas_com_atendentes', { id: row.clinica_id as number });
        if (owner?.nome === clinic.nome && row.nome === instance.nome) continue;
        problems.push({
          path: ['clinicas', i, 'instancias', j, 'external_id'],
          message: `${instance.provider} external_id "${instance.external_id}" is already the instance "${String(row.nome)}" of clinic "${String(owner?.nome ?? row.clinica_id)}"${whoseInstance(clinic.nome, instance.nome)}`,
        });
      }
    }
  }
  return problems;
}

async function upsertOne(
  tx: Database,
  table: string,
  values: Record<string, unknown>,
  conflict: string[],
): Promise<{ row: Row; action: SeedAction }> {
  const before = await tx.get(table, Object.fromEntries(conflict.map((c) => [c, values[c]])));
  const { row, inserted } = await tx.upsert(table, values, { conflict });
  if (inserted) return { row, action: 'inserted' };
  const changed = !before || Object.keys(values).some((k) => JSON.stringify(before[k] ?? null) !== JSON.stringify(row[k] ?? null));
  return { row, action: changed ? 'updated' : 'unchanged' };
}

/**
 * Reads a seed file (YAML, or JSON, which YAML reads too) and validates it; throws
 * SeedValidationError whose problems carry FILE:LINE:COL positions, SeedFileUnreadableError when it
 * cannot be read.
 */
export function readSeedFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new SeedFileUnreadableError(file, err as Error);
  }
  const source = new YamlSource(file, text);
  const syntax = source.syntaxProblems();
  if (syntax.length > 0)
    throw new SeedValidationError(syntax.map((p) => ({ path: [], message: p.message, file, line: p.line, col: p.col })));
  let data: unknown;
  try {
    data = source.toJS();
  } catch (err) {
    throw new SeedValidationError([{ path: [], message: (err as Error).message, file, line: 1, col: 1 }]);
  }
  const problems = seedProblems(data);
  if (problems.length > 0) {
    throw new SeedValidationError(
      problems.map((p): SeedProblem => {
        // A missing or unknown field is shown where its mapping is / at its key.
        const atKey = p.message === 'is not a known field';
        const { line, col } = source.position(p.path, { atKey });
        return { ...p, file, line, col };
      }),
    );
  }
  return data;
}
