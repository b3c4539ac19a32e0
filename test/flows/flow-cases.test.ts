// Runs the flow test cases shipped in flows/tests/ (what `leadflow test` runs, with the same host:
// the gateway providers' parsers and an in-process key-value store of the run's own).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblem } from '../../engine/load/yaml-source.js';
import { gatewayProviders } from '../../adapters/gateway/providers.js';
import { runFlowTests } from '../../engine/testing/flow-tests.js';
import { defaultRegistry } from '../../nodes/index.js';
import { withModelDefaults } from '../../adapters/ai/model-config.js';
import { MemoryKeyValue } from '../../adapters/kv/memory-key-value.js';

const ROOT = join(import.meta.dirname, '../..');
const FLOWS = join(ROOT, 'flows');
const TESTS = join(FLOWS, 'tests');
const hasCases = existsSync(TESTS) && readdirSync(TESTS, { recursive: true }).some((f) => /\.ya?ml$/.test(String(f)));

describe('flow test cases in flows/tests', () => {
  if (!hasCases) {
    console.warn('flows/tests holds no flow test cases: nothing to run here');
    it.skip('no flow test cases under flows/tests', () => undefined);
    return;
  }
  const run = runFlowTests({
    testsDir: TESTS,
    flowsDir: FLOWS,
    registry: defaultRegistry(),
    services: { gatewayProviders, kv: new MemoryKeyValue() },
    env: withModelDefaults(process.env),
  });

  it('test files and flows load without problems', async () => {
    const { problems } = await run;
    expect(problems.map(formatProblem)).toEqual([]);
  });

  it('every case passes', async () => {
    const { results } = await run;
    const failures = results.filter((r) => !r.passed).map((r) => `${r.name}:\n  ${r.failures.join('\n  ')}`);
    expect(failures).toEqual([]);
    expect(results.length).toBeGreaterThan(0);
  });
});
