// Prometheus figures of one process (`GET /metrics`), with prom-client: the standard text exposition
// format and real histograms (buckets, _sum, _count) without writing either by hand. Each call of
// `createMetrics` builds its own Registry (never prom-client's global one), so tests can build several.
//
// Fed by hooks, never by polling the business: the engine's observer (executions, steps, wait lag,
// and the metrics flows declare in their `metrics:` block), the AI service's onCall / onAgentAttempt, the gateway clients' onCall
// (every provider's, labelled with its `provider`: only the registry's names, adapters/gateway/providers.ts); the
// queue depth is read at scrape time from a callback the host sets (embedded: running + due waits
// of this process; a queue backend sets its own). Every hook swallows its own errors.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EngineObserver, FlowMetricsEvent, StepEndedEvent } from '../../engine/observer.js';
import type { ExecutionRecord, FlowMetric } from '../../engine/types.js';
import type { AgentAttemptEvent, AiCallEvent } from '../ai/ai-service.js';
import type { GatewayCallEvent } from '../gateway/gateway-client.js';
import { isGatewayProvider } from '../gateway/providers.js';
import type { SendRecoveryEvent } from '../gateway/send-evidence.js';

/** Prefix of every figure's name, process metrics included. */
export const METRIC_PREFIX = 'leadflow_';

/** Whether process metrics are collected, and where a failing hook or scrape-time callback is reported. */
export interface MetricsOptions {
  /** Process metrics (CPU, memory, event loop, GC) with the `leadflow_` prefix. Default true. */
  defaultMetrics?: boolean;
  /** Called when a hook or a scrape-time callback fails (the figure is skipped, nothing else happens). */
  onError?: (err: unknown, where: string) => void;
}

/** How many executions are due or running; read at each scrape. */
export type QueueDepthSource = () => number | Promise<number>;

/** How many appointments there are of each status (CONTRACT §12); read at each scrape. */
export type AppointmentCountsSource = () => Record<string, number> | Promise<Record<string, number>>;

/**
 * The figures of one process and the hooks that feed them (createMetrics); `render()` is the body of
 * GET /metrics.
 */
export interface Metrics {
  readonly registry: Registry;
  /** Content-Type of `render()`'s text. */
  readonly contentType: string;
  /** The text exposition of every figure. */
  render(): Promise<string>;
  /** Engine hooks (EngineOptions.observer). */
  readonly observer: EngineObserver;
  /** AiServiceOptions.onCall. */
  aiCall(event: AiCallEvent): void;
  /** AiServiceOptions.onAgentAttempt. */
  agentAttempt(event: AgentAttemptEvent): void;
  /** The gateway clients' onCall (GatewayHttpOptions.onCall); an event naming no registered provider is skipped (reported to onError). */
  gatewayCall(event: GatewayCallEvent): void;
  /** NodeServices.sendRecoveries: what became of a send a take-over found started and not finished. */
  sendRecovery(event: SendRecoveryEvent): void;
  /** Where `leadflow_queue_depth` comes from (replaces the previous source); without one it is 0. */
  setQueueDepth(source: QueueDepthSource): void;
  /** Where `leadflow_appointments{status}` comes from (replaces the previous source); without one it has no series. */
  setAppointmentCounts(source: AppointmentCountsSource): void;
}

/** Step and execution durations, seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** How late a wait resumes, seconds. */
const LAG_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300, 3600];

/**
 * The figures of one process in a Registry of their own: engine hooks (`observer`), AI and gateway
 * call hooks, the queue depth read at scrape time, and the metrics flows declare. A hook never
 * throws: its error goes to `options.onError` and the figure is skipped.
 */
export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const { failed, guard } = hookGuards(options.onError);
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });

  let queueDepth: QueueDepthSource = () => 0;
  const engine = engineFigures(registers, () => queueDepth(), failed);
  const calls = callFigures(registers);
  const declared = flowDeclaredMetrics(registers);
  let appointmentCounts: AppointmentCountsSource = () => ({});
  appointmentsGauge(registers, () => appointmentCounts(), failed);
  return {
    registry,
    contentType: registry.contentType,
    render: () => registry.metrics(),
    observer: engineObserver(engine, declared, guard),
    aiCall: guard('aiCall', (event: AiCallEvent) => {
      calls.aiCalls.inc({ model: event.model, kind: event.kind, outcome: event.outcome });
      if (event.input_tokens) calls.aiTokens.inc({ model: event.model, direction: 'input' }, event.input_tokens);
      if (event.output_tokens) calls.aiTokens.inc({ model: event.model, direction: 'output' }, event.output_tokens);
    }),
    agentAttempt: guard('agentAttempt', (event: AgentAttemptEvent) => {
      calls.agentAttempts.inc({ model: event.model, role: event.role, outcome: event.outcome });
    }),
    gatewayCall: guard('gatewayCall', (event: GatewayCallEvent) => {
      // The label's values are the registry's provider names only: anything else would grow the series.
      if (!isGatewayProvider(event.provider)) throw new Error(`gateway call of an unregistered provider ${JSON.stringify(event.provider)}`);
      (event.op === 'send' ? calls.gatewaySends : calls.gatewayDownloads).inc({ provider: event.provider, outcome: event.outcome });
    }),
    sendRecovery: guard('sendRecovery', (event: SendRecoveryEvent) => {
      if (!isGatewayProvider(event.provider))
        throw new Error(`send recovery of an unregistered provider ${JSON.stringify(event.provider)}`);
      calls.sendRecoveries.inc({ provider: event.provider, outcome: event.outcome });
    }),
    setQueueDepth(source) {
      queueDepth = source;
    },
    setAppointmentCounts(source) {
      appointmentCounts = source;
    },
  };
}

/**
 * `leadflow_appointments{status}`: the appointments of each status now (every clinic), read from
 * `read` at each scrape (the host passes a count over `agendamentos`); a failed read leaves no series
 * and is reported.
 */
function appointmentsGauge(registers: Registry[], read: AppointmentCountsSource, failed: (where: string) => (err: unknown) => void) {
  new Gauge({
    name: `${METRIC_PREFIX}appointments`,
    help: 'Appointments (agendamentos) by their status now: marcado, confirmado, cancelado, compareceu, faltou.',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      this.reset();
      try {
        for (const [status, n] of Object.entries(await read())) this.set({ status }, n);
      } catch (err) {
        failed('appointments')(err);
      }
    },
  });
}

/** Reports an error of `where` to `onError` (itself never throwing); `guard` wraps a hook body so it never throws. */
function hookGuards(onError: MetricsOptions['onError']) {
  const failed = (where: string) => (err: unknown) => {
    try {
      onError?.(err, where);
    } catch {
      // nothing more to do
    }
  };
  const guard =
    <A extends unknown[]>(where: string, fn: (...args: A) => void) =>
    (...args: A): void => {
      try {
        fn(...args);
      } catch (err) {
        failed(where)(err);
      }
    };
  return { failed, guard };
}

/** The engine's figures: executions, their and their steps' durations, the queue depth (read by `readQueueDepth` at each scrape), wait lag. */
function engineFigures(registers: Registry[], readQueueDepth: QueueDepthSource, failed: (where: string) => (err: unknown) => void) {
  const executions = new Counter({
    name: `${METRIC_PREFIX}executions_total`,
    help: 'Execution drives ended, by flow and status (success, failed, stopped; waiting when parked at a wait); cancelled: executions cancelled (by id, by key or replaced, waiting or running), counted once by the process that cancelled them.',
    labelNames: ['flow', 'status'] as const,
    registers,
  });
  const executionDuration = new Histogram({
    name: `${METRIC_PREFIX}execution_duration_seconds`,
    help: 'Wall time of one execution drive (from start or resume to its end or next wait), by flow and status.',
    labelNames: ['flow', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const stepDuration = new Histogram({
    name: `${METRIC_PREFIX}step_duration_seconds`,
    help: 'Wall time of the last attempt of each step, by node type and status (success, error, stopped).',
    labelNames: ['node_type', 'status'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  new Gauge({
    name: `${METRIC_PREFIX}queue_depth`,
    help: 'Executions due (waiting with a wake time already past) or running; NaN when it could not be read.',
    registers,
    async collect() {
      try {
        this.set(await readQueueDepth());
      } catch (err) {
        failed('queue_depth')(err);
        this.set(Number.NaN);
      }
    },
  });
  const waitLag = new Histogram({
    name: `${METRIC_PREFIX}wait_lag_seconds`,
    help: 'How late a waiting execution was resumed compared with its wake time.',
    buckets: LAG_BUCKETS,
    registers,
  });
  return { executions, executionDuration, stepDuration, waitLag };
}

/** The figures of outside calls: AI provider calls and tokens, agent attempts, gateway sends and downloads. */
function callFigures(registers: Registry[]) {
  const aiCalls = new Counter({
    name: `${METRIC_PREFIX}ai_calls_total`,
    help: 'AI provider calls, by model (provider:model), kind (chat, transcribe) and outcome (ok, error, rate_limited).',
    labelNames: ['model', 'kind', 'outcome'] as const,
    registers,
  });
  const aiTokens = new Counter({
    name: `${METRIC_PREFIX}ai_tokens_total`,
    help: 'Tokens of successful AI chat calls, by model and direction (input, output).',
    labelNames: ['model', 'direction'] as const,
    registers,
  });
  const agentAttempts = new Counter({
    name: `${METRIC_PREFIX}ai_agent_attempts_total`,
    help: 'Model attempts of agent and generate runs, by model, role in the chain (primary, fallback, contingency) and outcome (ok, error, rate_limited, empty).',
    labelNames: ['model', 'role', 'outcome'] as const,
    registers,
  });
  const gatewaySends = new Counter({
    name: `${METRIC_PREFIX}gateway_sends_total`,
    help: 'WhatsApp gateway sends (texts and templates), by provider (uazapi, evolution, cloud): ok or error once per send, retried once per retry.',
    labelNames: ['provider', 'outcome'] as const,
    registers,
  });
  const gatewayDownloads = new Counter({
    name: `${METRIC_PREFIX}gateway_downloads_total`,
    help: 'WhatsApp gateway media downloads, by provider (uazapi, evolution, cloud): ok or error once per download, retried once per retry.',
    labelNames: ['provider', 'outcome'] as const,
    registers,
  });
  const sendRecoveries = new Counter({
    name: `${METRIC_PREFIX}gateway_send_recoveries_total`,
    help: "Messages a take-over found started and not recorded as sent (the process died during the call), by provider and outcome: confirmed (the provider's evidence came; not sent again), resent or skipped (no evidence; gateway.send's `unconfirmed` policy).",
    labelNames: ['provider', 'outcome'] as const,
    registers,
  });
  return { aiCalls, aiTokens, agentAttempts, gatewaySends, gatewayDownloads, sendRecoveries };
}

/** The engine hooks feeding `figures` and the flows' declared metrics; every hook guarded. */
function engineObserver(
  figures: ReturnType<typeof engineFigures>,
  declared: ReturnType<typeof flowDeclaredMetrics>,
  guard: ReturnType<typeof hookGuards>['guard'],
): EngineObserver {
  return {
    executionEnded: guard('executionEnded', (record: Readonly<ExecutionRecord>, ms: number) => {
      // A cancelled one was counted where it was cancelled (executionCancelled).
      if (record.status !== 'cancelled') figures.executions.inc({ flow: record.flow, status: record.status });
      figures.executionDuration.observe({ flow: record.flow, status: record.status }, ms / 1000);
    }),
    // Every execution cancelled here, waiting (no drive ends it) or running: counted once, with no drive duration.
    executionCancelled: guard('executionCancelled', (record: Readonly<ExecutionRecord>) => {
      figures.executions.inc({ flow: record.flow, status: 'cancelled' });
    }),
    stepEnded: guard('stepEnded', (event: StepEndedEvent) => {
      figures.stepDuration.observe({ node_type: event.node_type, status: event.status }, event.ms / 1000);
    }),
    waitResumed: guard('waitResumed', (lagMs: number) => {
      figures.waitLag.observe(Math.max(0, lagMs) / 1000);
    }),
    flowsLoaded: (flows) => {
      for (const metric of flows.flatMap((flow) => flow.metrics ?? [])) guard('flowsLoaded', declared.declare)(metric);
    },
    flowMetrics: guard('flowMetrics', (event: FlowMetricsEvent) => {
      for (const { name, value } of event.observations) declared.observe(name, value);
    }),
  };
}

/**
 * The metrics flows declare (`metrics:`), registered on first declaration: a histogram, or a counter
 * (exposed at 0 until something is added). A name declared again with the same type, help and
 * buckets (another flow, a reload) is the same metric; with anything else, or a name already taken by
 * another metric, `declare` throws and the first one stays.
 */
function flowDeclaredMetrics(registers: Registry[]) {
  const byName = new Map<string, { signature: string; add: (value: number) => void }>();
  return {
    declare(metric: FlowMetric): void {
      const signature = JSON.stringify([metric.type, metric.help, metric.buckets]);
      const known = byName.get(metric.name);
      if (known?.signature === signature) return;
      if (known) throw new Error(`metric ${metric.name} is declared again with another type, help or buckets`);
      if (metric.type === 'counter') {
        const counter = new Counter({ name: metric.name, help: metric.help, registers });
        byName.set(metric.name, { signature, add: (value) => counter.inc(value) });
      } else {
        const histogram = new Histogram({ name: metric.name, help: metric.help, buckets: metric.buckets, registers });
        byName.set(metric.name, { signature, add: (value) => histogram.observe(value) });
      }
    },
    /** Observes a declared histogram, or adds to a declared counter; a name never declared is ignored. */
    observe(name: string, value: number): void {
      byName.get(name)?.add(value);
    },
  };
}

/** What the embedded queue depth needs of the engine (engine/engine.ts). */
export interface EmbeddedQueue {
  runningIds(): string[];
  readonly store: { listWaiting(): Promise<Array<{ id: string; wake_at: number | null }>> };
}

/** Embedded mode's queue depth: executions running in this process plus stored waits already due. */
export function embeddedQueueDepth(engine: EmbeddedQueue, now: () => number = Date.now): QueueDepthSource {
  return async () => {
    const running = new Set(engine.runningIds());
    const at = now();
    let due = 0;
    for (const wait of await engine.store.listWaiting()) if (wait.wake_at !== null && wait.wake_at <= at && !running.has(wait.id)) due++;
    return running.size + due;
  };
}
