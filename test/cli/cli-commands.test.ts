import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultRegistry } from '../../nodes/index.js';
import { removeScratch, runCli, SCRATCH } from '../helpers/cli.js';

const FLOWS = 'test/fixtures/cli-flows';
const INVALID = 'test/fixtures/cli-invalid';
const SAMPLE = `${FLOWS}/samples/greet.json`;

let hits: Array<{ url: string; headers: Record<string, unknown>; body: string }> = [];
let hookServer: Server;
let hookUrl: string;
let tmp: string;

beforeAll(async () => {
  hookServer = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ url: req.url ?? '', headers: req.headers, body });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ received: true }));
    });
  });
  await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hookServer.address() as AddressInfo).port}/hook`;
  tmp = mkdtempSync(join(SCRATCH, 'payloads-'));
});

afterAll(async () => {
  removeScratch();
  await new Promise((resolve) => hookServer.close(resolve));
});

function payload(body: unknown): string {
  const file = join(tmp, `payload-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(body));
  return file;
}

describe('leadflow --help', () => {
  it('lists the commands', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const command of ['serve', 'validate', 'run', 'graph', 'nodes', 'test'])
      expect(stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
  });

  it('exits 2 with help on an unknown command', async () => {
    const { code, stderr } = await runCli(['frobnicate']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown command/);
  });
});

describe('leadflow validate', () => {
  it('exits 0 for valid flows', async () => {
    const { code, stdout } = await runCli(['validate', FLOWS]);
    expect(code).toBe(0);
    expect(stdout).toBe('');
  });

  it('prints FILE:LINE:COL message for every problem and exits 1', async () => {
    const { code, stdout } = await runCli(['validate', INVALID]);
    expect(code).toBe(1);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^test\/fixtures\/cli-invalid\/bad\.yaml:\d+:\d+ \S.*$/);
    expect(lines[0]).toMatch(/^[^:]+:7:11 unknown node type "sett" \(did you mean "set"\?\)/);
    expect(lines[1]).toMatch(/:11:19 steps\.1\.params\.ms must be integer \[wrong-type\]$/);
    expect(lines[2]).toMatch(/:15:.* unknown step "missing"/);
  });

  it('reads LEADFLOW_FLOWS_DIR when no directory is given', async () => {
    const { code } = await runCli(['validate'], { env: { LEADFLOW_FLOWS_DIR: INVALID } });
    expect(code).toBe(1);
  });

  it('exits 2 for a directory that does not exist', async () => {
    const { code, stderr } = await runCli(['validate', 'no/such/dir']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/flows directory not found/);
  });
});

describe('leadflow run', () => {
  it('prints a step-by-step trace', async () => {
    const { code, stdout } = await runCli(['run', 'greet', '--payload', SAMPLE, '--flows', FLOWS]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^ok\s+hello\s+set\s+\d+ ms\s+\{"text":"Olá, Ana!"\}$/m);
    expect(stdout).toMatch(/^ok\s+maybe_notify\s+if\b/m);
    expect(stdout).toMatch(/^status: success$/m);
  });

  it('--json prints exactly one JSON object with the contract fields', async () => {
    const { code, stdout, stderr } = await runCli(['run', 'greet', '--payload', SAMPLE, '--flows', FLOWS, '--json']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(result).toMatchObject({ flow: 'greet', status: 'success', outbound: [] });
    expect(result.execution_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.steps.map((s: { id: string }) => s.id)).toEqual(['hello', 'maybe_notify', 'vip']);
    for (const step of result.steps)
      expect(Object.keys(step)).toEqual(expect.arrayContaining(['id', 'type', 'status', 'ms', 'output', 'error']));
    expect(stderr).not.toContain('{"execution_id"');
  });

  it('performs outbound calls normally and only records them with --dry-run', async () => {
    hits = [];
    const file = payload({ nome: 'Bia', notify_url: hookUrl });
    const dry = await runCli(['run', 'greet', '--payload', file, '--flows', FLOWS, '--json', '--dry-run']);
    expect(dry.code).toBe(0);
    const dryResult = JSON.parse(dry.stdout);
    expect(hits).toHaveLength(0);
    expect(dryResult.outbound).toEqual([
      {
        step: 'notify',
        kind: 'http',
        method: 'POST',
        url: hookUrl,
        headers: { token: '***', 'content-type': 'application/json' },
        body: { text: 'Olá, Bia!' },
        performed: false,
      },
    ]);

    const real = await runCli(['run', 'greet', '--payload', file, '--flows', FLOWS, '--json']);
    expect(real.code).toBe(0);
    expect(hits).toHaveLength(1);
    expect(JSON.parse(hits[0]!.body)).toEqual({ text: 'Olá, Bia!' });
    expect(hits[0]!.headers.token).toBe('abc123');
    expect(JSON.parse(real.stdout).outbound[0].performed).toBe(true);
  });

  it('exits 0 when the flow stops on purpose and 1 when it fails', async () => {
    const stopped = await runCli(['run', 'greet', '--payload', payload({ nome: 'Stop' }), '--flows', FLOWS, '--json']);
    expect(stopped.code).toBe(0);
    expect(JSON.parse(stopped.stdout)).toMatchObject({ status: 'stopped', stop_reason: 'asked to stop' });

    const failed = await runCli(['run', 'greet', '--payload', payload({ nome: 'Fail' }), '--flows', FLOWS, '--json']);
    expect(failed.code).toBe(1);
    const result = JSON.parse(failed.stdout);
    expect(result.status).toBe('failed');
    expect(result.steps.find((s: { id: string }) => s.id === 'explode').status).toBe('error');
  });

  it('exits 2 with a clear message for a bad payload, an invalid input or an unknown flow', async () => {
    const notJson = join(tmp, 'bad.json');
    writeFileSync(notJson, '{nope');
    const bad = await runCli(['run', 'greet', '--payload', notJson, '--flows', FLOWS]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not valid JSON/);

    const invalid = await runCli(['run', 'greet', '--payload', payload({ name: 'x' }), '--flows', FLOWS]);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/nome: is required/);

    const unknown = await runCli(['run', 'nope', '--payload', SAMPLE, '--flows', FLOWS]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown flow "nope" \(flows in .*: greet\)/);

    const missingPayload = await runCli(['run', 'greet', '--flows', FLOWS]);
    expect(missingPayload.code).toBe(2);
    expect(missingPayload.stderr).toMatch(/--payload/);
  });

  it('accepts the path of the flow file instead of its name', async () => {
    const { code, stdout } = await runCli(['run', `${FLOWS}/greet.yaml`, '--payload', SAMPLE, '--flows', FLOWS, '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).flow).toBe('greet');
  });
});

describe('leadflow seed', () => {
  it('a file it cannot read: one line naming it, exit 2, no stack trace, no database opened', async () => {
    const dataDir = mkdtempSync(join(SCRATCH, 'seed-data-'));
    for (const [file, reason] of [
      ['no/such/seed.yaml', 'ENOENT'],
      [SCRATCH, 'EISDIR'],
    ] as const) {
      const { code, stdout, stderr } = await runCli(['seed', file], { env: { LEADFLOW_DATA_DIR: dataDir, DATABASE_URL: '' } });
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(new RegExp(`^leadflow: cannot read seed file ${file}: ${reason}\\b[^\\n]*\\n$`));
    }
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('an agenda is checked per clinic: each problem names the clinic and the field, no credential is printed, a valid one seeds', async () => {
    const dataDir = mkdtempSync(join(SCRATCH, 'seed-agenda-'));
    const env = { LEADFLOW_DATA_DIR: dataDir, DATABASE_URL: '' };
    const clinic = (agenda: object) => ({ clinicas: [{ nome: 'Clínica Cal', hunter_telefone: '5511987654321', agenda }] });
    const bad = join(dataDir, 'bad.json');
    writeFileSync(
      bad,
      JSON.stringify(clinic({ provider: 'calcom', vagas: 0, calcom: { api_key: 'cal_live_SEGREDO123', event_type_id: 'x' } })),
    );
    const refused = await runCli(['seed', bad], { env });
    expect(refused.code).toBe(1);
    // FILE:LINE:COL, then the field and the problem naming the clinic.
    expect(
      refused.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.replace(/^.*bad\.json:1:\d+ /, '')),
    ).toEqual([
      'clinicas[0].agenda.vagas: must be an integer from 1 to 100, got 0 (clinic "Clínica Cal")',
      'clinicas[0].agenda.calcom.event_type_id: must be a positive integer, got "x" (clinic "Clínica Cal")',
    ]);
    const good = join(dataDir, 'good.json');
    writeFileSync(good, JSON.stringify(clinic({ provider: 'calcom', calcom: { api_key: 'cal_live_SEGREDO123', event_type_id: 7 } })));
    const seeded = await runCli(['seed', good], { env });
    expect(seeded.code).toBe(0);
    expect(seeded.stdout).toMatch(/^clinic {3}"Clínica Cal" id 1: inserted$/m);
    for (const out of [refused.stdout, refused.stderr, seeded.stdout, seeded.stderr]) expect(out).not.toContain('SEGREDO');
  });
});

describe('leadflow graph', () => {
  it('prints a Mermaid flowchart with the branches', async () => {
    const { code, stdout } = await runCli(['graph', 'greet', '--flows', FLOWS]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^flowchart/);
    expect(stdout).toContain('hello');
    expect(stdout).toMatch(/\|\s*"?then"?\s*\|/);
    expect(stdout).toMatch(/\|\s*"?Stop"?\s*\|/);
  });
});

describe('leadflow nodes', () => {
  it('lists every node type with its parameters', async () => {
    const { code, stdout } = await runCli(['nodes']);
    expect(code).toBe(0);
    for (const def of defaultRegistry().all()) {
      expect(stdout).toMatch(new RegExp(`^${def.type.replace('.', '\\.')}$`, 'm'));
    }
    expect(stdout).toMatch(/^\s+timeout_ms: integer \[default: 10000\] - /m);
    expect(stdout).toMatch(/^\s+url: string \(required\) - /m);
  });

  it('--json prints the same definitions as data', async () => {
    const { stdout } = await runCli(['nodes', '--json']);
    const defs = JSON.parse(stdout) as Array<{ type: string; params: { properties: object } }>;
    expect(defs.map((d) => d.type)).toEqual(defaultRegistry().types());
  });
});

describe('leadflow schema', () => {
  it('--check passes for the checked-in flows/flow.schema.json', async () => {
    const { code, stderr } = await runCli(['schema', '--check']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('--check fails for a stale schema file', async () => {
    const dir = mkdtempSync(join(SCRATCH, 'schema-'));
    writeFileSync(join(dir, 'flow.schema.json'), '{}\n');
    const { code, stderr } = await runCli(['schema', '--check'], { env: { LEADFLOW_FLOWS_DIR: dir } });
    expect(code).toBe(1);
    expect(stderr).toMatch(/stale: run `npm run schema`/);
  });
});

describe('leadflow test', () => {
  it('runs the cases under <flows>/tests and exits 0 when all pass', async () => {
    const { code, stdout } = await runCli(['test', '--flows', FLOWS]);
    expect(stdout).toMatch(/^ok\s+.*greet\.test\.yaml > greets by name/m);
    expect(stdout).toMatch(/^3 passed, 0 failed$/m);
    expect(code).toBe(0);
  });

  it('exits 1 and explains each failure', async () => {
    const { code, stdout } = await runCli(['test', 'test/fixtures/flow-tests/tests', '--flows', 'test/fixtures/flow-tests/flows']);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^FAIL /m);
    expect(stdout).toMatch(/expected .* got /);
    expect(stdout).toMatch(/^\d+ passed, [1-9]\d* failed$/m);
  });
});
