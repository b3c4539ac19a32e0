// The console's Flows page data (api-types.ts):
//   GET /admin/flows          -> FlowsResponse: the flows the engine serves, by name, and the problems
//                                of the latest load of the flows directory (FlowLoadReport)
//   GET /admin/flows/:name    -> FlowDetailResponse: the flow, its graph (engine/graph/flow-graph.ts)
//                                and each step as written (raw params, `file:line`, retry, on_error);
//                                422 {error, details: [{path: "name", message}]} on a name that is not a
//                                flow name, 404 {error} on an unknown one
// A step's line is where its mapping starts in the flow's source text (the text of the version served,
// not the file as it may be now), found from its path in the file through the YAML source; computed
// once per loaded flow.
import type { RequestHandler } from 'express';
import type { Engine } from '../../engine/engine.js';
import { flowGraph } from '../../engine/graph/flow-graph.js';
import { YamlSource } from '../../engine/load/yaml-source.js';
import type { LoadedFlow, LoadedStep } from '../../engine/types.js';
import type { FlowLoadReport } from '../../cli/flow-load-report.js';
import type { FlowDetailResponse, FlowGraphView, FlowsResponse, FlowStepView, FlowSummary, FlowTriggerSummary } from './api-types.js';
import { sendApiError, sendInvalid } from './lead-rows.js';

/** A flow name as the flow schema allows it (`name`), at most 100 characters. */
const FLOW_NAME = /^[a-z][a-z0-9-]{0,99}$/;

function triggerSummary(flow: LoadedFlow): FlowTriggerSummary {
  const { webhook, schedule } = flow.trigger;
  if (webhook) return { kind: 'webhook', method: webhook.method, path: webhook.path };
  if (schedule) return { kind: 'schedule', cron: schedule.cron, timezone: schedule.timezone };
  return { kind: 'none' };
}

/** Every step of `steps`, nested ones included, in reading order (a step before its children). */
function allSteps(steps: LoadedStep[]): LoadedStep[] {
  return steps.flatMap((step) => [step, ...Object.values(step.children).flatMap(allSteps)]);
}

/** A loaded flow as the Flows page lists it: name, file, version (its source hash), description, trigger and step count (nested steps included). */
export function flowSummary(flow: LoadedFlow): FlowSummary {
  return {
    name: flow.name,
    file: flow.file,
    version: flow.sourceHash,
    description: flow.description ?? null,
    trigger: triggerSummary(flow),
    steps: allSteps(flow.steps).length,
  };
}

function stepView(step: LoadedStep, node: string, file: string, source: YamlSource): FlowStepView {
  return {
    node,
    id: step.id,
    type: step.type,
    name: step.name ?? null,
    params: step.params,
    file,
    line: source.position(step.sourcePath).line,
    retry: step.retry ? { ...step.retry } : null,
    on_error: step.on_error === 'fail' ? null : step.on_error,
  };
}

const details = new WeakMap<LoadedFlow, FlowDetailResponse>();

/** The flow's page data, computed once per loaded flow (a reload loads new flow objects). */
export function flowDetail(flow: LoadedFlow): FlowDetailResponse {
  const known = details.get(flow);
  if (known) return known;
  const graph: FlowGraphView = flowGraph(flow);
  const nodeOfStep = new Map(graph.nodes.flatMap((n) => (n.step !== undefined ? [[n.step, n.id] as const] : [])));
  const source = new YamlSource(flow.file, flow.source.text);
  const steps = allSteps(flow.steps).map((step) => stepView(step, nodeOfStep.get(step.id) ?? '', flow.file, source));
  const detail: FlowDetailResponse = { flow: flowSummary(flow), graph, steps };
  details.set(flow, detail);
  return detail;
}

/** `GET /admin/flows`: the engine's flows by name and the problems of the latest load of the flows directory (`loads`). */
export function listFlows(engine: Engine, loads: FlowLoadReport): RequestHandler {
  return (_req, res) => {
    const flows = engine
      .listFlows()
      .map(flowSummary)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const problems = loads.problems().map(({ file, line, col, code, message }) => ({ file, line, col, code, message }));
    res.json({ flows, problems, loaded_at: loads.loadedAt().toISOString() } satisfies FlowsResponse);
  };
}

/** `GET /admin/flows/:name`: the flow's detail (flowDetail); 422 on a name the flow schema does not allow, 404 on a flow not loaded. */
export function getFlow(engine: Engine): RequestHandler {
  return (req, res) => {
    const name = String(req.params.name ?? '');
    if (!FLOW_NAME.test(name))
      return sendInvalid(res, 'invalid input', [
        { path: 'name', message: 'must be a flow name: lower-case letters, digits and "-", starting with a letter' },
      ]);
    const flow = engine.getFlow(name);
    if (!flow) return sendApiError(res, 404, 'no such flow');
    res.json(flowDetail(flow));
  };
}
