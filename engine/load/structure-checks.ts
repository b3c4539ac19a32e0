// Checks that need the whole flow: duplicate step ids, references to unknown steps (in expressions
// and `on_error.goto`), and steps that can never run because every path before them ends the flow.
import type { CompiledValue } from '../expressions.js';
import type { LoadedStep, LoadProblem } from '../types.js';
import type { Path, YamlSource } from './yaml-source.js';

/** Every compiled expression with the path of the YAML value holding it and its offset in that string. */
function expressionsWithPaths(
  value: CompiledValue | undefined,
  path: Path,
  out: Array<{ refs: string[]; path: Path; source: string; offset: number }>,
): void {
  if (!value) return;
  switch (value.kind) {
    case 'literal':
      return;
    case 'expression':
      out.push({ refs: value.expr.stepRefs, path, source: value.expr.source, offset: 2 });
      return;
    case 'template': {
      // The string is its parts in order, each expression written as `{{` source `}}`.
      let at = 0;
      for (const part of value.parts) {
        if (typeof part === 'string') at += part.length;
        else {
          out.push({ refs: part.stepRefs, path, source: part.source, offset: at + 2 });
          at += part.source.length + 4;
        }
      }
      return;
    }
    case 'object':
      for (const [k, v] of value.entries) expressionsWithPaths(v, [...path, k], out);
      return;
    case 'array':
      for (const [i, v] of value.items.entries()) expressionsWithPaths(v, [...path, i], out);
  }
}

function allSteps(steps: LoadedStep[], out: LoadedStep[] = []): LoadedStep[] {
  for (const step of steps) {
    out.push(step);
    for (const list of Object.values(step.children)) allSteps(list, out);
  }
  return out;
}

/** Whether running this list always ends the execution (a `stop` on every path). */
function listTerminates(steps: LoadedStep[], terminators: TerminationRule): boolean {
  return steps.some((s) => stepTerminates(s, terminators));
}

function stepTerminates(step: LoadedStep, rule: TerminationRule): boolean {
  const kind = rule(step.type);
  if (kind === 'always') return true;
  if (kind !== 'all-children') return false;
  const slots = rule.slots(step.type);
  const lists = Object.entries(step.children);
  for (const slot of slots) {
    const present = lists.filter(([key]) => key === slot || key.startsWith(`${slot}.`));
    if (present.length === 0 || present.some(([, list]) => list.length === 0)) return false;
  }
  return lists.every(([, list]) => listTerminates(list, rule));
}

/** How a node type ends a flow: `always` (stop), `all-children` (if/switch when every branch stops), or never. */
export interface TerminationRule {
  (type: string): 'always' | 'all-children' | undefined;
  slots(type: string): string[];
}

/** The flow-level values whose expressions may name steps (vars, output, the webhook's respond body). */
export interface FlowLevelValues {
  compiledVars: CompiledValue;
  compiledOutput?: CompiledValue;
  compiledRespondBody?: CompiledValue;
}

/**
 * Problems only the whole flow shows: `duplicate-step-id`, `unknown-step` (an expression or
 * `on_error.goto` naming no step; a goto must name a step of the same list) and `unreachable-step`
 * (every path before the step ends the flow). Positions come from `source`. Never throws.
 */
export function structuralProblems(
  steps: LoadedStep[],
  source: YamlSource,
  flowValues: FlowLevelValues,
  termination: TerminationRule,
): LoadProblem[] {
  const problems: LoadProblem[] = [];
  const everyStep = allSteps(steps);
  const ids = new Set<string>();
  for (const step of everyStep) {
    if (!step.id) continue;
    if (ids.has(step.id)) problems.push(source.problem([...step.sourcePath, 'id'], 'duplicate-step-id', `duplicate step id "${step.id}"`));
    ids.add(step.id);
  }

  const expressions: Array<{ refs: string[]; path: Path; source: string; offset: number }> = [];
  for (const step of everyStep) {
    expressionsWithPaths(step.compiledParams, [...step.sourcePath, 'params'], expressions);
    expressionsWithPaths(step.compiledRetryWhen, [...step.sourcePath, 'retry', 'when'], expressions);
  }
  expressionsWithPaths(flowValues.compiledVars, ['vars'], expressions);
  expressionsWithPaths(flowValues.compiledOutput, ['output'], expressions);
  expressionsWithPaths(flowValues.compiledRespondBody, ['trigger', 'webhook', 'respond', 'body'], expressions);
  for (const { refs, path, source: text, offset: exprOffset } of expressions) {
    for (const ref of refs) {
      if (ids.has(ref)) continue;
      const qualified = text.indexOf(`steps.${ref}`);
      const offset = qualified >= 0 ? qualified + 'steps.'.length : text.indexOf(ref);
      problems.push(
        source.problem(path, 'unknown-step', `expression refers to unknown step "${ref}"`, {
          charOffset: exprOffset + Math.max(0, offset),
        }),
      );
    }
  }

  const checkList = (list: LoadedStep[]) => {
    const gotoTargets = new Set<string>();
    for (const step of list) {
      if (typeof step.on_error === 'object') {
        const target = step.on_error.goto;
        if (!list.some((s) => s.id === target)) {
          problems.push(
            source.problem(
              [...step.sourcePath, 'on_error', 'goto'],
              'unknown-step',
              `on_error.goto "${target}" is not a step of the same list`,
            ),
          );
        } else gotoTargets.add(target);
      }
    }
    let reachable = true;
    for (const step of list) {
      if (gotoTargets.has(step.id)) reachable = true;
      if (!reachable)
        problems.push(
          source.problem(
            [...step.sourcePath, 'id'],
            'unreachable-step',
            `step "${step.id}" can never run: every path before it ends the flow`,
          ),
        );
      if (stepTerminates(step, termination)) reachable = false;
      for (const child of Object.values(step.children)) checkList(child);
    }
  };
  checkList(steps);
  return problems;
}
