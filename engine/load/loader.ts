// Loads flow files: YAML with positions -> generated flow schema (ajv) -> compiled expressions ->
// structural checks (duplicate ids, unknown step references, unreachable steps). Every problem of a
// file is collected; a file with any problem yields no flow.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { compileValue, type CompiledValue, type ExpressionProblem } from '../expressions.js';
import type { NodeRegistry } from '../registry.js';
import { compileInputSchema, compileParamSchema } from '../run/param-validator.js';
import type {
  FlowSource,
  JsonValue,
  LoadedFlow,
  LoadedFlowMetric,
  LoadedStep,
  LoadProblem,
  ScheduleTrigger,
  WebhookTrigger,
} from '../types.js';
import { webhookRoutes } from '../types.js';
import { buildSteps, terminationRule } from './build-steps.js';
import { diskReader, type FlowFileReader, type FlowFilesRead, flowVersionOf, readFlowFiles, sourceReader } from './flow-files.js';
import { RESPOND_DEFAULTS } from './defaults.js';
import { buildMetrics, metricProblems } from './metric-declarations.js';
import { buildSchedule, scheduleProblems } from './schedule-declarations.js';
import { flowValidator } from './flow-validator.js';
import { schemaProblems } from './schema-problems.js';
import { type FlowLevelValues, structuralProblems } from './structure-checks.js';
import { type Path, YamlSource } from './yaml-source.js';

/** What loading one flow file gives: the flow when it has no problem, else every problem found (sorted by position). */
export interface LoadResult {
  flow?: LoadedFlow;
  problems: LoadProblem[];
}

type Raw = Record<string, unknown>;

/**
 * Loads one flow from its text: YAML, then the flow schema of `registry`, then compiled expressions,
 * then the checks that need the whole flow. `file` names the file in problems; the files the flow
 * declares under `files:` are read with `readFile` (default: from disk, relative to `file`). Every
 * problem is collected (sorted by line and column); a text with any problem gives no flow. Never throws.
 *
 * @example
 * ```ts
 * const { flow, problems } = loadFlowText('hello.yaml', 'name: hello\nsteps:\n  - { id: hi, type: set, params: { values: { a: 1 } } }\n', registry);
 * // problems: []; flow.steps[0].retry: undefined; a `retry:` block would get RETRY_DEFAULTS filled in
 * ```
 */
export function loadFlowText(file: string, text: string, registry: NodeRegistry, readFile: FlowFileReader = diskReader(file)): LoadResult {
  const source = new YamlSource(file, text);
  const parsed = parseFlowData(source);
  if (!parsed.data) return { problems: parsed.problems };
  const raw = parsed.data;
  const validate = flowValidator(registry);
  const problems: LoadProblem[] = [];
  if (!validate(raw)) problems.push(...schemaProblems(validate.errors ?? [], raw, source, registry.types()));
  const compiled = compileFlow(raw, registry);
  for (const p of compiled.expressionProblems) {
    problems.push(source.problem(p.path, 'bad-expression', `bad expression: ${p.message}`, { charOffset: p.offset }));
  }
  problems.push(...structuralProblems(compiled.steps, source, compiled, terminationRule(registry)));
  problems.push(...inputSchemaProblems(raw, source), ...metricProblems(raw.metrics, source));
  problems.push(...scheduleProblems(raw.trigger, source));
  const read = readFlowFiles(raw.files, source, readFile);
  problems.push(...read.problems);
  if (problems.length > 0) return { problems: sortProblems(problems) };
  compileStepSchemas(compiled.steps, registry);
  return { flow: assembleFlow(file, raw, compiled, read), problems: [] };
}

/**
 * Compiles the params schema of every node type the steps use, now rather than at a request
 * (engine/run/param-validator.ts compiles each once per process). A schema that does not compile
 * is left to fail where it always did: when its step runs.
 */
function compileStepSchemas(steps: LoadedStep[], registry: NodeRegistry): void {
  for (const step of steps) {
    const def = registry.get(step.type);
    try {
      if (def) compileParamSchema(def);
    } catch {
      // reported by the step's run (validateParams)
    }
    for (const children of Object.values(step.children)) compileStepSchemas(children, registry);
  }
}

/**
 * Loads one version of a flow from its stored source (FlowSource: the YAML text and the files it
 * read), reading no file from disk; as loadFlowText otherwise. Never throws.
 */
export function loadFlowSource(file: string, source: FlowSource, registry: NodeRegistry): LoadResult {
  return loadFlowText(file, source.text, registry, sourceReader(source));
}

/** The file's data when it is a YAML mapping; else its syntax (or shape) problems. */
function parseFlowData(source: YamlSource): { data?: Raw; problems: LoadProblem[] } {
  const syntax = source.syntaxProblems();
  if (syntax.length > 0) return { problems: syntax };
  let data: unknown;
  try {
    data = source.toJS();
  } catch (err) {
    // e.g. an alias bomb (more than maxAliasCount expansions): a problem, never a crash.
    return { problems: [source.problem([], 'yaml-syntax', (err as Error).message)] };
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    return { problems: [source.problem([], 'wrong-type', 'a flow file must be a YAML mapping with name, trigger and steps')] };
  }
  return { data: data as Raw, problems: [] };
}

interface CompiledFlow extends FlowLevelValues {
  steps: LoadedStep[];
  compiledConcurrencyKey?: CompiledValue;
  metrics: LoadedFlowMetric[];
  expressionProblems: ExpressionProblem[];
}

/** Every value of the flow that may hold expressions, compiled; their problems are collected, not thrown. */
function compileFlow(raw: Raw, registry: NodeRegistry): CompiledFlow {
  const expressionProblems: ExpressionProblem[] = [];
  const compile = (value: unknown, path: Path): CompiledValue => compileValue(value, path, expressionProblems);
  const respondBody = webhookOf(raw)?.respond?.body;
  return {
    steps: buildSteps(raw.steps, ['steps'], registry, compile),
    compiledVars: compile(raw.vars ?? {}, ['vars']),
    compiledOutput: raw.output === undefined ? undefined : compile(raw.output, ['output']),
    compiledRespondBody: respondBody === undefined ? undefined : compile(respondBody, ['trigger', 'webhook', 'respond', 'body']),
    metrics: buildMetrics(raw.metrics, compile),
    compiledConcurrencyKey: concurrencyOf(raw) ? compile(concurrencyOf(raw)!.key, ['concurrency', 'key']) : undefined,
    expressionProblems,
  };
}

/** The `concurrency:` block as written, when the flow has one. */
function concurrencyOf(raw: Raw): { key: unknown; mode?: unknown } | undefined {
  const block = raw.concurrency;
  return block && typeof block === 'object' ? (block as { key: unknown }) : undefined;
}

/** `trigger.webhook` as written, with its `respond` block, when the flow has one. */
function webhookOf(raw: Raw): (Raw & { respond?: Raw }) | undefined {
  return ((raw.trigger ?? {}) as Raw).webhook as (Raw & { respond?: Raw }) | undefined;
}

/** A `trigger.input` that ajv cannot compile as a JSON Schema (compiled here once, for the requests too). */
function inputSchemaProblems(raw: Raw, source: YamlSource): LoadProblem[] {
  const input = ((raw.trigger ?? {}) as Raw).input;
  if (input === undefined || typeof input !== 'object') return [];
  try {
    compileInputSchema(input as object);
    return [];
  } catch (err) {
    return [source.problem(['trigger', 'input'], 'invalid-value', `trigger.input is not a valid JSON Schema: ${(err as Error).message}`)];
  }
}

/** The webhook trigger with every default filled in (RESPOND_DEFAULTS, POST, `secret` auth). */
function buildWebhook(webhookRaw: (Raw & { respond?: Raw }) | undefined): WebhookTrigger | undefined {
  if (!webhookRaw) return undefined;
  const respondRaw = webhookRaw.respond ?? {};
  const auth = (webhookRaw.auth as WebhookTrigger['auth']) ?? 'secret';
  const routes = ((webhookRaw.routes ?? []) as Raw[]).map((r) => ({
    method: (r.method as WebhookTrigger['method']) ?? 'POST',
    path: String(r.path),
    auth: (r.auth as WebhookTrigger['auth']) ?? auth,
  }));
  return {
    method: (webhookRaw.method as WebhookTrigger['method']) ?? 'POST',
    path: String(webhookRaw.path),
    auth,
    ...(routes.length > 0 ? { routes } : {}),
    respond:
      respondRaw.mode === 'step'
        ? {
            mode: 'step',
            timeout_ms: Number(respondRaw.timeout_ms ?? RESPOND_DEFAULTS.timeout_ms),
            ...(respondRaw.late
              ? { late: { status: Number((respondRaw.late as Raw).status), body: (respondRaw.late as Raw).body ?? null } }
              : {}),
          }
        : {
            mode: 'immediately',
            status: Number(respondRaw.status ?? RESPOND_DEFAULTS.status),
            body: respondRaw.body ?? { ...RESPOND_DEFAULTS.body },
          },
  };
}

/** The loaded flow of a file that has no problem. */
function assembleFlow(file: string, raw: Raw, compiled: CompiledFlow, read: FlowFilesRead): LoadedFlow {
  const webhook = buildWebhook(webhookOf(raw));
  const trigger = (raw.trigger ?? {}) as Raw;
  return {
    name: String(raw.name),
    description: raw.description as string | undefined,
    file,
    trigger: { webhook, ...scheduleOf(trigger), input: trigger.input as Record<string, unknown> | undefined },
    env: (raw.env ?? {}) as Record<string, JsonValue>,
    vars: (raw.vars ?? {}) as Record<string, unknown>,
    output: raw.output,
    metrics: compiled.metrics,
    ...(compiled.compiledConcurrencyKey
      ? {
          concurrency: { key: String(concurrencyOf(raw)!.key), mode: 'replace' as const },
          compiledConcurrencyKey: compiled.compiledConcurrencyKey,
        }
      : {}),
    steps: compiled.steps,
    compiledVars: compiled.compiledVars,
    compiledOutput: compiled.compiledOutput,
    compiledRespondBody:
      compiled.compiledRespondBody ?? (webhook?.respond.mode === 'immediately' ? compileValue(RESPOND_DEFAULTS.body) : undefined),
    files: read.files,
    source: read.source,
    sourceHash: flowVersionOf(read.source),
  };
}

/** `{ schedule }` when the flow has a schedule trigger, else nothing (no `schedule: undefined` member). */
function scheduleOf(trigger: Raw): { schedule?: ScheduleTrigger } {
  const schedule = buildSchedule(trigger);
  return schedule ? { schedule } : {};
}

function sortProblems(problems: LoadProblem[]): LoadProblem[] {
  return problems.sort((a, b) => a.line - b.line || a.col - b.col);
}

/**
 * Reads and loads one flow file. `displayName` names the file in problems (default: `file`). Never
 * throws: a file that cannot be read is an `unreadable-file` problem at 1:1.
 */
export function loadFlowFile(file: string, registry: NodeRegistry, displayName = file): LoadResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return {
      problems: [
        { file: displayName, line: 1, col: 1, path: [], code: 'unreadable-file', message: `cannot read file: ${(err as Error).message}` },
      ],
    };
  }
  return loadFlowText(displayName, text, registry, diskReader(file));
}

/**
 * What loading a flows directory gives: the flows without problems keyed by name, every problem of
 * every file (and across files), and the flow files found (absolute or as given, sorted).
 */
export interface DirectoryLoadResult {
  flows: Map<string, LoadedFlow>;
  problems: LoadProblem[];
  files: string[];
}

/** Flow files of a directory, sorted: `*.yaml` / `*.yml` directly inside it (subfolders hold tests, prompts, samples). Throws when `dir` cannot be listed. */
export function listFlowFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => join(dir, name))
    .filter((file) => statSync(file).isFile())
    .sort();
}

/**
 * Loads every flow file directly inside `dir` (`*.yaml`, `*.yml`) and checks what spans files:
 * `duplicate-flow` (a name used twice), `duplicate-route` (a method and path served twice) and
 * `unknown-flow` (a `call-flow` naming no loaded flow). A file with any problem gives no flow; the
 * others are returned. Problems name files relative to `cwd` (default: the process's). Throws only
 * when `dir` itself cannot be listed.
 *
 * @example
 * ```ts
 * import { loadFlowDirectory } from './engine/load/loader.js';
 * import { formatProblem } from './engine/load/yaml-source.js';
 * import { defaultRegistry } from './nodes/index.js';
 *
 * const { flows, problems } = loadFlowDirectory('flows', defaultRegistry());
 * for (const problem of problems) console.error(formatProblem(problem)); // flows/intake.yaml:12:7 … [unknown-step]
 * const intake = flows.get('intake'); // a LoadedFlow, ready for new Engine({ flows, registry })
 * ```
 */
export function loadFlowDirectory(dir: string, registry: NodeRegistry, cwd = process.cwd()): DirectoryLoadResult {
  const files = listFlowFiles(dir);
  const flows = new Map<string, LoadedFlow>();
  const problems: LoadProblem[] = [];
  const routes = new Map<string, string>();
  for (const file of files) {
    const display = relative(cwd, file) || file;
    const result = loadFlowFile(file, registry, display);
    problems.push(...result.problems);
    const flow = result.flow;
    if (!flow) continue;
    if (flows.has(flow.name)) {
      const source = new YamlSource(display, readFileSync(file, 'utf8'));
      problems.push(
        source.problem(['name'], 'duplicate-flow', `flow name "${flow.name}" is already used by ${flows.get(flow.name)!.file}`),
      );
      continue;
    }
    const taken = routeProblems(flow, display, file, routes);
    if (taken.length > 0) {
      problems.push(...taken);
      continue;
    }
    flows.set(flow.name, flow);
  }
  problems.push(...callFlowProblems(flows, cwd));
  return { flows, problems, files };
}

/**
 * A `duplicate-route` problem for each route of `flow` (its webhook's main route and `routes`)
 * already served, by another flow or by an earlier route of this one; none: its routes are added to
 * `served` (route -> the file serving it).
 */
function routeProblems(flow: LoadedFlow, display: string, file: string, served: Map<string, string>): LoadProblem[] {
  if (!flow.trigger.webhook) return [];
  const problems: LoadProblem[] = [];
  const mine = new Map<string, string>();
  webhookRoutes(flow.trigger.webhook).forEach((r, i) => {
    const route = `${r.method} ${r.path}`;
    const owner = served.get(route) ?? (mine.has(route) ? `${display} (its ${mine.get(route)})` : undefined);
    if (!owner) {
      mine.set(route, i === 0 ? 'trigger.webhook.path' : `trigger.webhook.routes[${i - 1}]`);
      return;
    }
    const source = new YamlSource(display, readFileSync(file, 'utf8'));
    const at = i === 0 ? ['trigger', 'webhook', 'path'] : ['trigger', 'webhook', 'routes', i - 1, 'path'];
    problems.push(source.problem(at, 'duplicate-route', `route ${route} is already served by ${owner}`));
  });
  if (problems.length === 0) for (const route of mine.keys()) served.set(route, display);
  return problems;
}

/** Steps naming another flow: they must name a loaded one. */
const FLOW_STEPS = new Set(['call-flow', 'flow.start', 'flow.cancel']);

/** `call-flow`, `flow.start` and `flow.cancel` steps whose literal `flow` parameter names no loaded flow. */
function callFlowProblems(flows: Map<string, LoadedFlow>, cwd: string): LoadProblem[] {
  const problems: LoadProblem[] = [];
  const visit = (flow: LoadedFlow, steps: LoadedStep[]) => {
    for (const step of steps) {
      if (FLOW_STEPS.has(step.type) && step.compiledParams.kind === 'object') {
        const target = step.compiledParams.entries.find(([k]) => k === 'flow')?.[1];
        if (target?.kind === 'literal' && typeof target.value === 'string' && !flows.has(target.value)) {
          const source = new YamlSource(flow.file, readFileSync(join(cwd, flow.file), 'utf8'));
          problems.push(
            source.problem(
              [...step.sourcePath, 'params', 'flow'],
              'unknown-flow',
              `${step.type} target "${target.value}" is not a loaded flow`,
            ),
          );
        }
      }
      for (const list of Object.values(step.children)) visit(flow, list);
    }
  };
  for (const flow of flows.values()) visit(flow, flow.steps);
  return problems;
}
