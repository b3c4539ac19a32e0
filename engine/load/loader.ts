// Loads flow files: YAML with positions -> generated flow schema (ajv) -> compiled expressions ->
// structural checks (duplicate ids, unknown step references, unreachable steps). Every problem of a
// file is collected; a file with any problem yields no flow.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import AjvModule, { type ValidateFunction } from 'ajv';
import { buildFlowSchema } from '../flow-schema.js';
import { compileValue, type CompiledValue, type ExpressionProblem } from '../expressions.js';
import type { NodeRegistry } from '../registry.js';
import type { JsonValue, LoadedFlow, LoadedStep, LoadProblem, OnError, RetryPolicy, WebhookTrigger } from '../types.js';
import { YamlSource, type Path } from './yaml-source.js';
import { structuralProblems, type TerminationRule } from './structure-checks.js';
import { schemaProblems } from './schema-problems.js';
import { RESPOND_DEFAULTS, RETRY_DEFAULTS } from './defaults.js';

const Ajv = AjvModule.default ?? AjvModule;

export interface LoadResult {
  flow?: LoadedFlow;
  problems: LoadProblem[];
}

const validators = new WeakMap<NodeRegistry, ValidateFunction>();

function flowValidator(registry: NodeRegistry): ValidateFunction {
  let validate = validators.get(registry);
  if (!validate) {
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: false });
    validate = ajv.compile(buildFlowSchema(registry));
    validators.set(registry, validate);
  }
  return validate;
}

const inputSchemaAjv = new Ajv({ allErrors: true, strict: false });

type Raw = Record<string, unknown>;

/** Loads one flow from its text. `file` is only used in problem positions. */
export function loadFlowText(file: string, text: string, registry: NodeRegistry): LoadResult {
  const source = new YamlSource(file, text);
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
  const validate = flowValidator(registry);
  const problems: LoadProblem[] = [];
  if (!validate(data)) {
    problems.push(...schemaProblems(validate.errors ?? [], data, source, registry.types()));
  }
  const raw = data as Raw;
  const expressionProblems: ExpressionProblem[] = [];
  const compile = (value: unknown, path: Path): CompiledValue => compileValue(value, path, expressionProblems);

  const steps = buildSteps(raw.steps, ['steps'], registry, compile);
  const compiledVars = compile(raw.vars ?? {}, ['vars']);
  const compiledOutput = raw.output === undefined ? undefined : compile(raw.output, ['output']);
  const trigger = (raw.trigger ?? {}) as Raw;
  const webhookRaw = trigger.webhook as Raw | undefined;
  const respondRaw = (webhookRaw?.respond ?? {}) as Raw;
  const compiledRespondBody =
    respondRaw.body === undefined ? undefined : compile(respondRaw.body, ['trigger', 'webhook', 'respond', 'body']);

  for (const p of expressionProblems) {
    problems.push(source.problem(p.path, 'bad-expression', `bad expression: ${p.message}`, { charOffset: p.offset }));
  }
  problems.push(...structuralProblems(steps, source, { compiledVars, compiledOutput, compiledRespondBody }, terminationRule(registry)));

  if (trigger.input !== undefined && typeof trigger.input === 'object') {
    try {
      inputSchemaAjv.compile(trigger.input as object);
    } catch (err) {
      problems.push(
        source.problem(['trigger', 'input'], 'invalid-value', `trigger.input is not a valid JSON Schema: ${(err as Error).message}`),
      );
    }
  }
  if (problems.length > 0) return { problems: sortProblems(problems) };

  const webhook: WebhookTrigger | undefined = webhookRaw
    ? {
        method: (webhookRaw.method as WebhookTrigger['method']) ?? 'POST',
        path: String(webhookRaw.path),
        auth: (webhookRaw.auth as WebhookTrigger['auth']) ?? 'secret',
        respond:
          respondRaw.mode === 'step'
            ? { mode: 'step', timeout_ms: Number(respondRaw.timeout_ms ?? RESPOND_DEFAULTS.timeout_ms) }
            : {
                mode: 'immediately',
                status: Number(respondRaw.status ?? RESPOND_DEFAULTS.status),
                body: respondRaw.body ?? { ...RESPOND_DEFAULTS.body },
              },
      }
    : undefined;
  const flow: LoadedFlow = {
    name: String(raw.name),
    description: raw.description as string | undefined,
    file,
    trigger: { webhook, input: trigger.input as Record<string, unknown> | undefined },
    env: (raw.env ?? {}) as Record<string, JsonValue>,
    vars: (raw.vars ?? {}) as Record<string, unknown>,
    output: raw.output,
    steps,
    compiledVars,
    compiledOutput,
    compiledRespondBody: compiledRespondBody ?? (webhook?.respond.mode === 'immediately' ? compile(RESPOND_DEFAULTS.body, []) : undefined),
    sourceHash: createHash('sha256').update(text).digest('hex'),
  };
  return { flow, problems: [] };
}

function terminationRule(registry: NodeRegistry): TerminationRule {
  const rule = ((type: string) => registry.get(type)?.terminates) as TerminationRule;
  rule.slots = (type: string) => Object.keys(registry.get(type)?.children ?? {});
  return rule;
}

function buildSteps(value: unknown, path: Path, registry: NodeRegistry, compile: (v: unknown, p: Path) => CompiledValue): LoadedStep[] {
  if (!Array.isArray(value)) return [];
  const steps: LoadedStep[] = [];
  value.forEach((item, index) => {
    if (!item || typeof item !== 'object') return;
    const raw = item as Raw;
    const stepPath = [...path, index];
    const def = typeof raw.type === 'string' ? registry.get(raw.type) : undefined;
    const children: Record<string, LoadedStep[]> = {};
    for (const [slot, decl] of Object.entries(def?.children ?? {})) {
      const slotValue = raw[slot];
      if (decl.shape === 'list') {
        // An absent optional slot (`else`, `default`) stays absent: nodes tell it from an empty list.
        if (slotValue !== undefined) children[slot] = buildSteps(slotValue, [...stepPath, slot], registry, compile);
      } else if (slotValue && typeof slotValue === 'object') {
        for (const [name, list] of Object.entries(slotValue as Raw)) {
          children[`${slot}.${name}`] = buildSteps(list, [...stepPath, slot, name], registry, compile);
        }
      }
    }
    const retryRaw = raw.retry as Raw | undefined;
    const retry: RetryPolicy | undefined = retryRaw ? { ...RETRY_DEFAULTS, ...(retryRaw as Partial<RetryPolicy>) } : undefined;
    const params = (raw.params ?? {}) as Record<string, unknown>;
    steps.push({
      id: String(raw.id ?? ''),
      type: String(raw.type ?? ''),
      name: raw.name as string | undefined,
      params,
      retry,
      on_error: (raw.on_error as OnError | undefined) ?? 'fail',
      children,
      compiledParams: compile(params, [...stepPath, 'params']),
      compiledRetryWhen: retryRaw?.when !== undefined ? compile(retryRaw.when, [...stepPath, 'retry', 'when']) : undefined,
      sourcePath: stepPath,
    });
  });
  return steps;
}

function sortProblems(problems: LoadProblem[]): LoadProblem[] {
  return problems.sort((a, b) => a.line - b.line || a.col - b.col);
}

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
  return loadFlowText(displayName, text, registry);
}

export interface DirectoryLoadResult {
  flows: Map<string, LoadedFlow>;
  problems: LoadProblem[];
  files: string[];
}

/** Flow files of a directory: `*.yaml` / `*.yml` directly inside it (subfolders hold tests, prompts, samples). */
export function listFlowFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => /\.ya?ml$/.test(name))
    .map((name) => join(dir, name))
    .filter((file) => statSync(file).isFile())
    .sort();
}

/** Loads every flow of a directory and checks what spans files: names, routes and call-flow targets. */
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
    if (flow.trigger.webhook) {
      const route = `${flow.trigger.webhook.method} ${flow.trigger.webhook.path}`;
      const owner = routes.get(route);
      if (owner) {
        const source = new YamlSource(display, readFileSync(file, 'utf8'));
        problems.push(source.problem(['trigger', 'webhook', 'path'], 'duplicate-route', `route ${route} is already served by ${owner}`));
        continue;
      }
      routes.set(route, display);
    }
    flows.set(flow.name, flow);
  }
  problems.push(...callFlowProblems(flows, cwd));
  return { flows, problems, files };
}

/** `call-flow` steps whose literal `flow` parameter names no loaded flow. */
function callFlowProblems(flows: Map<string, LoadedFlow>, cwd: string): LoadProblem[] {
  const problems: LoadProblem[] = [];
  const visit = (flow: LoadedFlow, steps: LoadedStep[]) => {
    for (const step of steps) {
      if (step.type === 'call-flow' && step.compiledParams.kind === 'object') {
        const target = step.compiledParams.entries.find(([k]) => k === 'flow')?.[1];
        if (target?.kind === 'literal' && typeof target.value === 'string' && !flows.has(target.value)) {
          const source = new YamlSource(flow.file, readFileSync(join(cwd, flow.file), 'utf8'));
          problems.push(
            source.problem(
              [...step.sourcePath, 'params', 'flow'],
              'unknown-flow',
              `call-flow target "${target.value}" is not a loaded flow`,
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
