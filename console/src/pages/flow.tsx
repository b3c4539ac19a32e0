// One flow (GET /admin/flows/:name): its trigger, file and version, its graph drawn as SVG
// (components/flow-graph.tsx), and beside it (below on narrow screens) the selected step: type,
// `file:line`, on_error, retry and its params as written in the YAML (as text). The selected step
// lives in the address (?step=), so a link can point at one step.
import { useCallback, useMemo } from 'preact/hooks';
import type { FlowDetailResponse, FlowGraphEdgeView, FlowGraphGroupView, FlowGraphNodeView, FlowStepView } from '../../server/api-types.js';
import { api } from '../api/client.js';
import { LoadError, Loading } from '../components/feedback.js';
import { FlowGraph } from '../components/flow-graph.js';
import { Link } from '../components/link.js';
import type { NodeLine } from '../flow-layout.js';
import { formatJson } from '../format.js';
import { t } from '../i18n/index.js';
import { stopReasonText } from '../i18n/server-texts.js';
import { usePageTitle } from '../hooks/use-page-title.js';
import { useResource } from '../hooks/use-resource.js';
import { navigate } from '../router.js';
import { href, type PageProps } from '../routes.js';
import { triggerText } from './flows.js';

/** One flow's page (`/console/flows/:name`, `?step=` the selected step). */
export function FlowPage({ params, location, title }: PageProps) {
  const name = params.name ?? '';
  const resource = useResource(() => api<FlowDetailResponse>('GET', `/admin/flows/${encodeURIComponent(name)}`), [name]);
  const selected = location.search.get('step');
  usePageTitle(title());
  return (
    <main class="page page-wide">
      <Link href={href('flows')}>{t.flows.backToList}</Link>
      <h1>{t.flows.heading1(name)}</h1>
      {resource.error ? <LoadError error={resource.error} onRetry={resource.reload} /> : null}
      {!resource.data && !resource.error ? <Loading /> : null}
      {resource.data ? <FlowView detail={resource.data} selected={selected} /> : null}
    </main>
  );
}

function FlowView({ detail, selected }: { detail: FlowDetailResponse; selected: string | null }) {
  const { flow, graph, steps } = detail;
  const byStep = useMemo(() => new Map(steps.map((s) => [s.id, s])), [steps]);
  const nodes = useMemo(() => new Map(graph.nodes.map((n) => [n.id, n])), [graph]);
  // Stable per loaded flow, so the layout is computed once.
  const linesOf = useCallback((node: FlowGraphNodeView) => nodeLines(node, detail), [detail]);
  const edgeLabel = useCallback((edge: FlowGraphEdgeView) => edgeText(edge, nodes.get(edge.from)), [nodes]);
  const groupLabel = useCallback((group: FlowGraphGroupView) => t.flows.graph.forEach(nodes.get(group.of)?.step ?? group.of), [nodes]);
  const select = (step: string) => navigate(href('flow', { name: flow.name }, `?step=${encodeURIComponent(step)}`), true);
  const step = selected ? byStep.get(selected) : undefined;
  return (
    <>
      <dl class="facts facts-inline card">
        <div class="fact">
          <dt>{t.flows.triggerLabel}</dt>
          <dd class="mono">{triggerText(flow.trigger)}</dd>
        </div>
        <div class="fact">
          <dt>{t.flows.file}</dt>
          <dd class="mono">{flow.file}</dd>
        </div>
        <div class="fact">
          <dt>{t.flows.versionLabel}</dt>
          <dd class="mono">{flow.version.slice(0, 12)}</dd>
        </div>
        <div class="fact">
          <dt>{t.flows.stepsLabel}</dt>
          <dd>{flow.steps}</dd>
        </div>
      </dl>
      {flow.description ? <p class="flow-description">{flow.description}</p> : null}
      <p class="muted graph-hint">{t.flows.graphHint}</p>
      <div class="flow-layout">
        <FlowGraph
          graph={graph}
          name={flow.name}
          linesOf={linesOf}
          edgeLabel={edgeLabel}
          groupLabel={groupLabel}
          selected={selected}
          onSelect={select}
        />
        <StepPanel selected={selected} step={step} />
      </div>
    </>
  );
}

/** The lines drawn in a node: the step id, its type, its name or a stop's reason, "em erro: continua". */
function nodeLines(node: FlowGraphNodeView, detail: FlowDetailResponse): NodeLine[] {
  switch (node.kind) {
    case 'trigger':
      return [
        { text: detail.flow.name, style: 'title' },
        { text: detail.flow.trigger.kind === 'none' ? t.flows.graph.start : triggerText(detail.flow.trigger), style: 'sub' },
      ];
    case 'end':
      return [{ text: t.flows.graph.end, style: 'title' }];
    case 'join':
      return [{ text: t.flows.graph.join, style: 'sub' }];
    default: {
      const step = detail.steps.find((s) => s.node === node.id);
      const lines: NodeLine[] = [
        { text: node.label, style: 'title', code: true },
        { text: node.type ?? '', style: 'sub', code: true },
      ];
      const reason = node.kind === 'stop' ? (step?.params as { reason?: unknown } | null)?.reason : undefined;
      if (step?.name) lines.push({ text: step.name, style: 'sub' });
      else if (typeof reason === 'string') lines.push({ text: stopReasonText(reason), style: 'sub' });
      if (step?.on_error === 'continue') lines.push({ text: t.flows.graph.onErrorContinue, style: 'sub' });
      return lines;
    }
  }
}

/** An edge's label: branch names and case keys as written in the YAML; the engine's own words translated. */
function edgeText(edge: FlowGraphEdgeView, from: FlowGraphNodeView | undefined): string | undefined {
  if (edge.kind === 'error') return t.flows.graph.onError;
  if (edge.kind === 'loop' && edge.label === 'next item') return t.flows.graph.nextItem;
  if (from?.kind === 'foreach' && edge.label === 'each item') return t.flows.graph.eachItem;
  if (from?.kind === 'foreach' && edge.label === 'done') return t.flows.graph.done;
  return edge.label;
}

function StepPanel({ selected, step }: { selected: string | null; step: FlowStepView | undefined }) {
  if (!step)
    return (
      <aside class="step-panel card" aria-label={t.flows.panelLabel}>
        <p class="muted">{selected ? t.flows.unknownStep(selected) : t.flows.selectHint}</p>
      </aside>
    );
  const retry = step.retry as { attempts?: number; delay_ms?: number } | null;
  return (
    <aside class="step-panel card" aria-label={t.flows.panelLabel}>
      <h2 class="mono">{step.id}</h2>
      <dl class="facts">
        <div class="fact">
          <dt>{t.flows.stepType}</dt>
          <dd class="mono">{step.type}</dd>
        </div>
        {step.name ? (
          <div class="fact">
            <dt>{t.flows.stepName}</dt>
            <dd>{step.name}</dd>
          </div>
        ) : null}
        <div class="fact">
          <dt>{t.flows.location}</dt>
          <dd class="mono step-location">{`${step.file}:${step.line}`}</dd>
        </div>
        {step.on_error ? (
          <div class="fact">
            <dt>{t.flows.onError}</dt>
            <dd>{step.on_error === 'continue' ? t.flows.onErrorContinue : t.flows.onErrorGoto(step.on_error.goto)}</dd>
          </div>
        ) : null}
        {retry ? (
          <div class="fact">
            <dt>{t.flows.retry}</dt>
            <dd>{t.flows.retrySummary(Number(retry.attempts), Number(retry.delay_ms))}</dd>
          </div>
        ) : null}
      </dl>
      <h3>{t.flows.params}</h3>
      {step.params && typeof step.params === 'object' && Object.keys(step.params).length > 0 ? (
        <pre class="step-params">{formatJson(step.params)}</pre>
      ) : (
        <p class="muted">{t.flows.noParams}</p>
      )}
    </aside>
  );
}
