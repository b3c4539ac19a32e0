// The sample payloads of flows/samples/ replayed the way the README says, on a fresh database seeded
// with seed/example.yaml: `leadflow run FLOW --payload flows/samples/<file> --dry-run` works for
// every sample (a file is named after its flow, optionally `<flow>-<variant>.json`), records what
// it would send, and leaves the database as the seed left it.
import { mkdtempSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../adapters/db/database.js';
import { removeScratch, ROOT, runCli, SCRATCH } from '../helpers/cli.js';

const SAMPLES = join(ROOT, 'flows/samples');
const samples = readdirSync(SAMPLES)
  .filter((f) => f.endsWith('.json'))
  .sort();
const flowNames = readdirSync(join(ROOT, 'flows'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => f.replace(/\.yaml$/, ''));
/** The flow a sample is for: its name is the flow's, or `<flow>-<variant>` (the longest flow name that fits; flow names may hold `-`). */
const flowOf = (file: string) => {
  const base = file.replace(/\.json$/, '');
  const fits = flowNames.filter((f) => base === f || base.startsWith(`${f}-`)).sort((a, b) => b.length - a.length);
  return fits[0] ?? base;
};

let env: Record<string, string>;
let dataDir: string;

/** Rows of the tables a flow may write, to compare before and after. */
async function snapshot(): Promise<Record<string, unknown[]>> {
  const db = createDatabase({ dataDir });
  try {
    const tables = ['leads', 'wf_chat_histories', 'clinicas_com_atendentes', 'protocolos', 'instancias_whatsapp'];
    return Object.fromEntries(
      await Promise.all(tables.map(async (t) => [t, await db.find(t, { order_by: [{ column: 'id', direction: 'asc' }] })])),
    );
  } finally {
    await db.close();
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(SCRATCH, 'samples-data-'));
  // No AI keys, nothing listening at the seed's gateway: a dry run must not need either.
  env = { LEADFLOW_DATA_DIR: dataDir, OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', LEADFLOW_INTAKE_DELAY_MS: '0' };
  const seeded = await runCli(['seed', 'seed/example.yaml'], { env });
  expect(seeded.code, seeded.stderr).toBe(0);
});

afterAll(() => removeScratch());

describe('flows/samples', () => {
  it('has a sample for every flow of flows/', () => {
    expect(flowNames.length).toBeGreaterThan(0);
    for (const flow of flowNames) expect(samples.map(flowOf), `no sample for ${flow}`).toContain(flow);
  });

  it.each(samples)('%s runs with --dry-run after the example seed and changes nothing', async (file) => {
    const before = await snapshot();
    const run = await runCli(['run', flowOf(file), '--payload', `flows/samples/${file}`, '--dry-run', '--json'], {
      env,
      timeoutMs: 30_000,
    });
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as {
      flow: string;
      status: string;
      stop_reason?: string;
      outbound: Array<{ step: string; url: string; body: any; performed: boolean }>;
    };
    expect(result.flow).toBe(flowOf(file));
    if (result.flow === 'intake') {
      // A new lead of the example clinic: the first message (template: no AI keys) and the Hunter's alert.
      expect(result.status).toBe('success');
      expect(result.outbound.every((o) => o.performed === false)).toBe(true);
      const numbers = result.outbound.map((o) => o.body?.number);
      expect(numbers).toContain('5511987654321');
      expect(numbers.filter((n) => n !== '5511987654321').length).toBeGreaterThan(0);
    } else if (result.flow === 'followup') {
      // The follow-up of a lead the fresh seed does not have: due long ago, it finds the lead erased.
      expect(result.status).toBe('stopped');
      expect(result.stop_reason).toBe('lead erased');
    } else if (result.flow === 'reminders') {
      // The reminders of an appointment the fresh seed does not have: nothing planned, nothing sent.
      expect(result.status).toBe('stopped');
      expect(result.stop_reason).toBe('no such appointment');
      expect(result.outbound).toEqual([]);
    } else if (result.flow === 'lead-action' || result.flow === 'lead-reply') {
      // A console action or reply on a lead id the fresh seed does not have.
      expect(result.status).toBe('stopped');
      expect(result.stop_reason).toBe('no such lead');
      expect(result.outbound).toEqual([]);
    } else if (result.flow === 'agenda-action') {
      // A console change in a dry run: the booking node changes nothing.
      expect(result.status).toBe('success');
      expect(result.outbound).toEqual([]);
    } else if (result.flow === 'agenda-notice') {
      // The Hunter's notice of an appointment the fresh seed does not have.
      expect(result.status).toBe('stopped');
      expect(result.stop_reason).toBe('no such appointment');
      expect(result.outbound).toEqual([]);
    } else {
      // agent and handoff samples come from a phone that is not a lead of the fresh seed.
      expect(result.status).toBe('stopped');
      expect(result.stop_reason).toMatch(result.flow === 'agent' ? /not a lead/ : /no lead/);
    }
    expect(await snapshot()).toEqual(before);
  });
});
