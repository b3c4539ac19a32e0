// Turns the `steps:` list of a parsed flow file into loaded steps: defaults filled in, parameters
// and retry conditions compiled, child step lists (then/else, cases, branches …) built recursively.
import type { CompiledValue } from '../expressions.js';
import type { NodeRegistry } from '../registry.js';
import type { LoadedStep, OnError, RetryPolicy } from '../types.js';
import { RETRY_DEFAULTS } from './defaults.js';
import type { TerminationRule } from './structure-checks.js';
import type { Path } from './yaml-source.js';

type Raw = Record<string, unknown>;

/** Compiles one YAML value found at `path`; problems are collected by the caller's compiler. */
export type Compile = (value: unknown, path: Path) => CompiledValue;

/**
 * The loaded steps of a step list at `path`. Items that are not mappings are skipped (the schema
 * reports them); a step of an unknown type gets no children. Never throws.
 */
export function buildSteps(value: unknown, path: Path, registry: NodeRegistry, compile: Compile): LoadedStep[] {
  if (!Array.isArray(value)) return [];
  const steps: LoadedStep[] = [];
  value.forEach((item, index) => {
    if (!item || typeof item !== 'object') return;
    steps.push(buildStep(item as Raw, [...path, index], registry, compile));
  });
  return steps;
}

function buildStep(raw: Raw, stepPath: Path, registry: NodeRegistry, compile: Compile): LoadedStep {
  const retryRaw = raw.retry as Raw | undefined;
  const retry: RetryPolicy | undefined = retryRaw ? { ...RETRY_DEFAULTS, ...(retryRaw as Partial<RetryPolicy>) } : undefined;
  const params = (raw.params ?? {}) as Record<string, unknown>;
  return {
    id: String(raw.id ?? ''),
    type: String(raw.type ?? ''),
    name: raw.name as string | undefined,
    params,
    retry,
    on_error: (raw.on_error as OnError | undefined) ?? 'fail',
    children: buildChildren(raw, stepPath, registry, compile),
    compiledParams: compile(params, [...stepPath, 'params']),
    compiledRetryWhen: retryRaw?.when !== undefined ? compile(retryRaw.when, [...stepPath, 'retry', 'when']) : undefined,
    sourcePath: stepPath,
  };
}

/** Child lists keyed by slot (`then`) or, for map slots, by `slot.name` (`cases.new`). */
function buildChildren(raw: Raw, stepPath: Path, registry: NodeRegistry, compile: Compile): Record<string, LoadedStep[]> {
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
  return children;
}

/** The unreachable-step check's view of the registry: how each node type ends a flow, and its slots. */
export function terminationRule(registry: NodeRegistry): TerminationRule {
  const rule = ((type: string) => registry.get(type)?.terminates) as TerminationRule;
  rule.slots = (type: string) => Object.keys(registry.get(type)?.children ?? {});
  return rule;
}
