// The wiring between a drive and the contexts of its steps (StepDrive, see step-context.ts): built
// once per drive from the run's host, with what the run does itself (walk a child list, save) handed
// in. Starting and cancelling flows are recorded on the execution here (`started_flows`,
// `cancelled_flows`).
import { toPlainJson } from '../plain-json.js';
import type { ExecutionRecord, JsonValue, LoadedStep, StartedFlow, StartFlowOptions } from '../types.js';
import { maskSecrets } from './mask-secrets.js';
import type { RunHost } from './run-host.js';
import { childScope, type RunScope } from './run-scope.js';
import type { StepDrive } from './step-context.js';

/** Runs a step list in `scope` for the run; resolves to the outputs it produced. */
export type RunList = (list: LoadedStep[], scope: RunScope) => Promise<Record<string, JsonValue>>;

/** The saves of the run (RunSaves), as its steps' contexts use them. */
export interface DriveSaves {
  /** Queues a save of the record; resolves once it (and every earlier one) is written. */
  save(): Promise<void>;
  /** A respond step answered (record.response is set): the answer is handed on (RunSaves.answered). */
  answered(): void;
}

/** NodeContext.startFlow: the host starts it (a dry run only resolves its key); recorded in `started_flows`. */
async function startFlow(
  host: RunHost,
  record: ExecutionRecord,
  step: LoadedStep,
  flow: string,
  input: JsonValue,
  options: StartFlowOptions,
): Promise<StartedFlow> {
  const started = await host.startFlow!(record, flow, input, options);
  const entry = {
    step: step.id,
    flow,
    ...(started.key !== null ? { key: started.key } : {}),
    input,
    execution_id: started.execution_id,
    performed: started.execution_id !== null,
  };
  record.started_flows = [...(record.started_flows ?? []), maskSecrets(toPlainJson(entry) ?? null) as never];
  return started;
}

/** NodeContext.cancelFlow: the host cancels (a dry run cancels nothing); recorded in `cancelled_flows`. */
async function cancelFlow(
  host: RunHost,
  record: ExecutionRecord,
  step: LoadedStep,
  flow: string,
  key: string,
  reason: string | undefined,
): Promise<string | null> {
  const why = reason ?? `cancelled by execution ${record.id} (step ${step.id})`;
  const cancelled = await host.cancelFlow!(record, flow, key, why);
  const entry = { step: step.id, flow, key, reason: why, cancelled, performed: !record.dry_run };
  record.cancelled_flows = [...(record.cancelled_flows ?? []), toPlainJson(entry) as never];
  return cancelled;
}

/**
 * What the contexts of one drive's steps share (StepContext): built once per drive. `services` is
 * a copy of the host's, one object per drive, so what nodes derive from it (nodes/services.ts) is
 * built once per drive too. startFlow, cancelFlow and interruptedPeersUntil are there when the host has them.
 */
export function buildStepDrive(
  host: RunHost,
  record: ExecutionRecord,
  flow: string,
  runList: RunList,
  saves: DriveSaves,
): StepDrive<RunScope> {
  return {
    record,
    flow,
    services: { ...host.services },
    logger: host.logger,
    runChildren: async (step, scope, slot, bindings, scopeKey) => {
      const list = step.children[slot];
      if (!list) throw new Error(`step "${step.id}" has no child list "${slot}"`);
      return runList(list, childScope(step, scope, bindings, scopeKey));
    },
    save: () => saves.save(),
    respond: (status, body, headers) => {
      if (record.response) throw new Error('the webhook was already answered by an earlier respond step');
      record.response = { status, body, ...(headers ? { headers } : {}) };
      saves.answered();
      if (host.saveResponses) void saves.save();
    },
    callFlow: (stepKey, name, input, state) => host.callFlow(record, stepKey, name, input, state),
    ...(host.startFlow
      ? {
          startFlow: (step: LoadedStep, name: string, input: JsonValue, options: StartFlowOptions) =>
            startFlow(host, record, step, name, input, options),
        }
      : {}),
    ...(host.cancelFlow
      ? {
          cancelFlow: (step: LoadedStep, name: string, key: string, reason: string | undefined) =>
            cancelFlow(host, record, step, name, key, reason),
        }
      : {}),
    ...(host.interruptedPeersUntil ? { interruptedPeersUntil: () => host.interruptedPeersUntil!(record) } : {}),
  };
}
