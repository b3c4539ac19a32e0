// Where a step of a run stands: its scope (the key prefix of its records, loop bindings, the outputs
// seen only inside a `foreach` iteration), and what `steps.*` and the bindings are inside it.
import { assignOwn } from '../assign-own.js';
import type { JsonValue, LoadedStep, ScopeBindings } from '../types.js';

/** The scope a step list runs in: the top level, or one child list of a control step. */
export interface RunScope {
  /** Prefix of the keys of the step records made inside (`<step>[<index>]/` in a loop, else the parent's). */
  prefix: string;
  /** Loop bindings (`item`, `index`) set by this scope; empty outside loops. */
  bindings: ScopeBindings;
  /** Outputs visible only inside this scope (foreach iteration); null: write to the global outputs. */
  local: Record<string, JsonValue> | null;
  parent: RunScope | null;
}

/** The top-level scope of a run. */
export function topScope(): RunScope {
  return { prefix: '', bindings: {}, local: null, parent: null };
}

/** Whether loop bindings (`item`, `index`) are set in a scope. */
function hasBindings(bindings: ScopeBindings): boolean {
  for (const _ in bindings) return true;
  return false;
}

/**
 * The scope of a child list of `step` run in `scope` (NodeContext.runChildren): with loop bindings,
 * an iteration of its own (records keyed `<step>[<scopeKey or index>]/`, outputs kept inside);
 * without, the parent's records and outputs.
 */
export function childScope(step: LoadedStep, scope: RunScope, bindings: ScopeBindings | undefined, scopeKey: string | undefined): RunScope {
  return bindings && (bindings.item !== undefined || bindings.index !== undefined)
    ? { prefix: `${scope.prefix}${step.id}[${scopeKey ?? bindings.index ?? 0}]/`, bindings, local: {}, parent: scope }
    : { prefix: scope.prefix, bindings: {}, local: null, parent: scope };
}

/**
 * `steps.*` and the loop bindings as seen inside `scope`, given the run's global `outputs`: outside
 * loops `outputs` itself and no bindings (no copy per step); inside, a copy of `outputs` with the
 * iterations' own outputs over it, and every enclosing scope's bindings, innermost last.
 */
export function scopeView(
  scope: RunScope,
  outputs: Record<string, JsonValue>,
): { steps: Record<string, JsonValue>; bindings?: ScopeBindings } {
  let looped = false;
  for (let s: RunScope | null = scope; s; s = s.parent) if (s.local || hasBindings(s.bindings)) looped = true;
  if (!looped) return { steps: outputs };
  const chain: RunScope[] = [];
  for (let s: RunScope | null = scope; s; s = s.parent) chain.unshift(s);
  const steps = chain.some((s) => s.local) ? { ...outputs } : outputs;
  let bindings: ScopeBindings = {};
  for (const s of chain) {
    if (s.local) assignOwn(steps, s.local);
    bindings = { ...bindings, ...s.bindings };
  }
  return { steps, bindings };
}
