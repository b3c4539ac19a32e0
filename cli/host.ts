// Wiring shared by the commands: the node registry, the flows directory, the engine.
import { resolve } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { Engine } from '../engine/engine.js';
import { loadFlowDirectory } from '../engine/load/loader.js';
import type { EngineObserver } from '../engine/observer.js';
import type { Logger } from '../engine/logger.js';
import { formatProblem, YamlSource } from '../engine/load/yaml-source.js';
import type { Scheduler } from '../engine/scheduler/scheduler.js';
import type { ExecutionStore } from '../engine/store/execution-store.js';
import type { TickStore } from '../engine/store/tick-store.js';
import type { WebhookAuthModes } from '../engine/triggers/auth-modes.js';
import { type LoadedFlow, type LoadProblem, webhookRoutes } from '../engine/types.js';
import { defaultRegistry } from '../nodes/index.js';
import type { NodeServices } from '../nodes/services.js';
import { UsageError } from './usage-error.js';
import { loadTimeAuthModes } from './webhook-auth-modes.js';

export { flowsDirectory } from './flows-directory.js';

export { UsageError } from './usage-error.js';

/** A load of the flows directory: the valid flows by name, and every problem found (file, line, column). */
export interface LoadedFlows {
  /** The directory read. */
  dir: string;
  /** The flows that loaded, by name. */
  flows: Map<string, LoadedFlow>;
  problems: LoadProblem[];
}

/**
 * Loads every flow of `dir` with the full node registry, the webhook auth modes the host does not
 * register counted as problems too. Problems are returned, not thrown; a missing directory is a UsageError.
 */
export function loadFlows(dir: string): LoadedFlows {
  if (!existsSync(dir)) throw new UsageError(`flows directory not found: ${dir}`);
  const { flows, problems } = loadFlowDirectory(dir, defaultRegistry());
  problems.push(...unregisteredAuthModes(flows, loadTimeAuthModes()));
  return { dir, flows, problems };
}

/**
 * An `invalid-value` problem for each webhook route whose auth mode the host does not register: at
 * `trigger.webhook.auth`, or at `trigger.webhook.routes[i].auth` (positioned at the route when it
 * inherits the webhook's auth).
 */
export function unregisteredAuthModes(flows: Map<string, LoadedFlow>, modes: WebhookAuthModes): LoadProblem[] {
  const problems: LoadProblem[] = [];
  for (const flow of flows.values()) {
    const routes = flow.trigger.webhook ? webhookRoutes(flow.trigger.webhook) : [];
    routes.forEach((route, i) => {
      const message = modes.unknownModeMessage(flow.name, route.auth);
      if (!message) return;
      const source = new YamlSource(flow.file, readFileSync(flow.file, 'utf8'));
      const at = i === 0 ? ['trigger', 'webhook', 'auth'] : ['trigger', 'webhook', 'routes', i - 1, 'auth'];
      problems.push(source.problem(at, 'invalid-value', message));
    });
  }
  return problems;
}

/** Loads the flows and fails with every problem listed when any flow is invalid. */
export function loadValidFlows(dir: string): LoadedFlows {
  const loaded = loadFlows(dir);
  if (loaded.problems.length > 0) throw new UsageError(`invalid flows:\n${loaded.problems.map(formatProblem).join('\n')}`);
  return loaded;
}

/** Finds a flow by name, or by the path of its file. */
export function pickFlow(loaded: LoadedFlows, nameOrFile: string): LoadedFlow {
  const byName = loaded.flows.get(nameOrFile);
  if (byName) return byName;
  const wanted = resolve(nameOrFile);
  for (const flow of loaded.flows.values()) if (resolve(flow.file) === wanted) return flow;
  const names = [...loaded.flows.keys()].join(', ') || 'none';
  throw new UsageError(`unknown flow "${nameOrFile}" (flows in ${loaded.dir}: ${names})`);
}

/**
 * The engine of a command, with every shipped node type. Fails at once (MissingServiceError, naming
 * the node type and the service) when `services` lacks one a node type declares.
 */
export function createEngine(
  flows: Map<string, LoadedFlow>,
  logger: Logger,
  options: {
    services: NodeServices;
    store?: ExecutionStore;
    env?: Record<string, string | undefined>;
    observer?: EngineObserver;
    scheduler?: Scheduler;
    leaseMs?: number;
    /** Where schedule ticks are claimed (the database's, shared by every process); default in memory. */
    ticks?: TickStore;
    /** With a shared (durable) scheduler: triggered executions are only recorded and enqueued for any process (LEADFLOW_WEBHOOK_MODE=queue). Default false: run here first. */
    queueWebhooks?: boolean;
  },
): Engine {
  const registry = defaultRegistry();
  registry.requireServices(options.services);
  return new Engine({
    registry,
    flows,
    logger,
    services: options.services,
    store: options.store,
    env: options.env,
    observer: options.observer,
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.ticks ? { ticks: options.ticks } : {}),
    ...(options.scheduler
      ? { scheduler: options.scheduler, queued: options.scheduler.durable === true && options.queueWebhooks === true }
      : {}),
  });
}
