// The command line loads only what a command needs: `--version`, `--help`, every `<cmd> --help`, and
// the commands that need no database or AI (validate, graph, nodes, schema) never load the database,
// queue, Redis, HTTP server, metrics, logger or AI SDK packages (cli/main.ts: each command imports its
// implementation inside its action). Checked on what the process resolves (test/helpers/import-recorder.mjs),
// not on timings (those are bench/startup.ts's). Also: `--version` prints package.json's version and
// `--help` still lists every command.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { removeScratch, ROOT, runCli, SCRATCH } from '../helpers/cli.js';

afterAll(removeScratch);

/** Packages a light command must never load. */
const HEAVY = ['knex', 'better-sqlite3', 'pg', 'bullmq', 'ioredis', 'openai', '@anthropic-ai/sdk', 'express', 'prom-client', 'pino'];

const RECORDER = join(ROOT, 'test/helpers/import-recorder.mjs');

/** The packages (by name) `leadflow ...args` resolved while it ran, and its result. */
async function packagesLoaded(args: string[], env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'leadflow-imports-'));
  const log = join(dir, 'imports.log');
  try {
    const result = await runCli(args, {
      env: { ...env, NODE_OPTIONS: `--import ${RECORDER}`, LEADFLOW_IMPORT_LOG: log },
    });
    let urls: string[] = [];
    try {
      urls = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    } catch {
      /* nothing recorded */
    }
    const packages = new Set(
      urls.flatMap((url) => {
        const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
        return m ? [m[1]!] : [];
      }),
    );
    return { result, urls, packages };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The top-level commands: one file per command under cli/commands/ (executions-cancel is a subcommand of executions). */
const COMMANDS = readdirSync(join(ROOT, 'cli/commands'))
  .filter((f) => f.endsWith('.ts') && f !== 'executions-cancel.ts')
  .map((f) => f.replace(/\.ts$/, ''));

describe('leadflow --version and --help', () => {
  it("--version prints package.json's version", async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
  });

  it("--version is the program's only before a command: `executions list --version <hash>` keeps its own option", async () => {
    const result = await runCli(['executions', 'list', '--json', '--version', '0123456789'], {
      env: { LEADFLOW_DATA_DIR: join(SCRATCH, 'version-option-data') },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual([]);
  });

  it('--help lists every command', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    expect(COMMANDS.length).toBeGreaterThanOrEqual(12);
    for (const name of COMMANDS) expect(result.stdout).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
  });
});

describe('what the light commands load', () => {
  it('the recorder sees a heavy package when a command does load one (migrate loads knex)', async () => {
    const { result, packages } = await packagesLoaded(['migrate'], { LEADFLOW_DATA_DIR: join(SCRATCH, 'migrate-data') });
    expect(result.code).toBe(0);
    expect(packages).toContain('knex');
  });

  const light: Array<[string, string[]]> = [
    ['--version', ['--version']],
    ['--help', ['--help']],
    ...COMMANDS.map((name): [string, string[]] => [`${name} --help`, [name, '--help']]),
    ['validate', ['validate']],
    ['graph intake', ['graph', 'intake']],
    ['nodes', ['nodes']],
    ['schema', ['schema']],
  ];
  it.each(light)('leadflow %s loads none of the heavy packages', async (_name, args) => {
    const { result, packages, urls } = await packagesLoaded(args);
    expect(result.code, result.stderr).toBe(0);
    expect(urls.length).toBeGreaterThan(0);
    expect(HEAVY.filter((p) => packages.has(p))).toEqual([]);
  });
});

describe('the command line ships bundled (scripts/bundle-cli.mjs, scripts/bundle-typebox.mjs)', () => {
  /** The packages scripts/bundle-cli.mjs inlines: never loaded from node_modules by the CLI. */
  const INLINED = ['js-yaml', 'jsonata', 'commander', 'luxon', 'croner', '@sinclair/typebox'];

  it('validate reads the shipped flows with the inlined packages and the prebuilt validators: no `yaml`, no schema compiler', async () => {
    const { result, packages, urls } = await packagesLoaded(['validate']);
    expect(result.code, result.stderr).toBe(0);
    expect(INLINED.filter((p) => packages.has(p))).toEqual([]);
    expect(packages.has('yaml')).toBe(false);
    expect(packages.has('ajv-formats')).toBe(false);
    // From ajv's package only the runtime helpers the generated validators require, not its compiler.
    const ajvFiles = urls.filter((u) => u.includes('/node_modules/ajv/'));
    expect(ajvFiles.length).toBeGreaterThan(0);
    expect(
      ajvFiles.every((u) => u.includes('/node_modules/ajv/dist/runtime/')),
      ajvFiles.join('\n'),
    ).toBe(true);
    const bundled = [...new Set(urls.filter((u) => /\/dist\/cli\/(main\.js|chunks\/)/.test(u)))];
    expect(bundled.length).toBeGreaterThan(0);
    // Nor, inlined in a chunk, ajv's compiler or the time-zone library of business hours (their runs load
    // it): esbuild marks each inlined file with its path.
    const texts = bundled.map((u) => readFileSync(fileURLToPath(u), 'utf8'));
    for (const marker of ['node_modules/ajv/dist/compile/', 'node_modules/luxon/']) {
      expect(
        texts.some((text) => text.includes(marker)),
        marker,
      ).toBe(false);
    }
    // The flows' trigger.input schemas were prebuilt too: nothing compiled them.
    expect(urls.some((u) => u.endsWith('/dist/engine/run/schema-validators.generated.cjs'))).toBe(true);
  });

  it('validate loads `yaml` when a flow has a problem to position', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'leadflow-imports-flows-'));
    try {
      writeFileSync(join(dir, 'broken.yaml'), 'name: broken\nsteps:\n  - id: a\n    type: no.such.node\n');
      const { result, packages } = await packagesLoaded(['validate', dir]);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/broken\.yaml:4:11 unknown node type "no\.such\.node"/);
      expect(packages.has('yaml')).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("`nodes` loads a few bundled files, not LeadFlow's modules or TypeBox's one by one, and lists the same node types", async () => {
    const { result, packages, urls } = await packagesLoaded(['nodes', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(packages.has('@sinclair/typebox')).toBe(false);
    const own = [...new Set(urls.filter((u) => u.includes('/dist/') && !u.includes('/node_modules/')))];
    expect(own.length).toBeGreaterThan(0);
    // Unbundled, `nodes` loaded about 240 of LeadFlow's modules.
    expect(own.length).toBeLessThan(40);
    expect(
      own.every((u) => /\/dist\/cli\/(main\.js|chunks\/)/.test(u)),
      own.join('\n'),
    ).toBe(true);
    // The bundle builds the same schemas: each node's params schema is a TypeBox object with properties.
    const defs = JSON.parse(result.stdout) as Array<{ type: string; params: { type?: string; properties?: object } }>;
    expect(defs.length).toBeGreaterThan(20);
    for (const d of defs) expect(d.params.type, d.type).toBe('object');
  });
});
