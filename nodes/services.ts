// The services a host hands to node types (`ctx.services`), declared once: their names, their types
// (the adapters' interfaces) and what each is, for messages. A node type that needs services is
// written with `defineServiceNode`, names them in `services`, and reads them typed:
//
//   export default defineServiceNode({ type: 'db.get', services: ['db'], ..., run: (params, ctx) => ctx.services.db.get(...) });
//
// Contract:
//   - The host builds every declared service (cli/runtime.ts) and checks them when it builds its
//     engine (NodeRegistry.requireServices): a missing one fails at start, naming node type and service.
//   - Engines built without that check (tests, `leadflow test` with mocked steps) still run: reading a
//     declared service the host did not give throws when the node reads it, naming the step and the
//     service, so a step that never reads it (a dry-run branch) runs as before.
//   - Services a node does not declare are still readable, typed as possibly undefined (optional
//     settings such as `mediaOptions`).
//   - The AI service a step reads names its execution (AiCallEvent.execution): bound once per drive,
//     on first read, on the drive's own services object (the engine copies the host's per drive), so
//     a service node is handed its context as is, with nothing made per step.
import type { Static, TSchema } from '../engine/typebox.js';
import type { AiService } from '../adapters/ai/ai-service.js';
import type { Clock } from '../adapters/clock.js';
import type { TableOperations } from '../adapters/db/table-ops.js';
import type { GatewayClientFactory } from '../adapters/gateway/gateway-client.js';
import type { InstanceDirectory } from '../adapters/gateway/instance-directory.js';
import type { GatewayProviderRegistry } from '../adapters/gateway/provider-registry.js';
import type { MediaStore } from '../adapters/gateway/media-cache.js';
import type { SendRecoveryEvent } from '../adapters/gateway/send-evidence.js';
import type { BookingService } from '../adapters/calendar/booking-service.js';
import type { KeyValue } from '../adapters/kv/key-value.js';
import type { MediaConverterOptions } from '../adapters/media/media-to-text.js';
import type { ExecutionEraser } from '../engine/store/erasing-store.js';
import type { NodeContext, NodeDefinition } from '../engine/types.js';

/** Host settings for media conversion (ffmpeg path and limits, temp dir, language). */
export type MediaHostOptions = Pick<
  MediaConverterOptions,
  'ffmpegPath' | 'ffmpegTimeoutMs' | 'videoFrames' | 'tmpDir' | 'language' | 'requestTimeoutMs'
>;

/** Every service a host may give node types, by name (`ctx.services.<name>`). */
export type NodeServices = {
  /** The database's table operations (a Database, or a rollback scope's in dry runs). */
  db: TableOperations;
  /** The key-value store: Redis when REDIS_URL is set, else in-process. */
  kv: KeyValue;
  /** Chat, transcription and the configured models (adapters/ai/ai-service.ts). */
  ai: AiService;
  /** Builds the WhatsApp gateway client of one instance. */
  gateway: GatewayClientFactory;
  /** The gateway providers by name: each one's event parser and what it keeps per lead (adapters/gateway/providers.ts). */
  gatewayProviders: GatewayProviderRegistry<string>;
  /** Looks a WhatsApp instance up by id (its token included). */
  instances: InstanceDirectory;
  /** Media bytes held between a download step and the step that converts them. */
  media: MediaStore;
  /** The execution store, able to erase a lead from recorded executions. */
  executions: ExecutionEraser;
  /** Optional: media conversion settings; absent means the converter's defaults. */
  mediaOptions?: MediaHostOptions;
  /** Appointments and each clinic's calendar (CONTRACT §12): the booking store, opened per step. */
  booking: BookingService;
  /** Optional: told what became of each send a take-over found started and not finished (metrics). */
  sendRecoveries?: (event: SendRecoveryEvent) => void;
  /** Optional: what "now" is for nodes that read the time of day (`hours.check`, `ai.agent`); absent means the system clock. */
  clock?: Clock;
};

/** The name of a host service (`ctx.services.<name>`), as a node type declares it in `services`. */
export type ServiceName = keyof NodeServices;

/** What each service is, for the message of a step that needs one the host did not give. */
const SERVICE_DESCRIPTIONS: Record<ServiceName, string> = {
  db: 'a database',
  kv: 'a key-value store',
  ai: 'the AI service',
  gateway: 'a WhatsApp gateway client factory',
  gatewayProviders: 'the gateway provider registry',
  instances: 'the WhatsApp instance directory',
  media: 'a media cache',
  executions: 'an execution store that can erase',
  mediaOptions: 'media conversion settings',
  clock: 'a clock',
  booking: 'the booking store',
  sendRecoveries: 'a send-recovery metrics hook',
};

/** The services a node declaring `S` reads: those typed as present, every other one as optional. */
export type ServicesOf<S extends ServiceName> = Required<Pick<NodeServices, S>> & Partial<NodeServices>;

/** The run context of a node declaring the services `S`: a NodeContext whose `services` are typed. */
export type ServiceNodeContext<S extends ServiceName> = NodeContext<ServicesOf<S>>;

/** A node definition that names its services and gets them typed in `run`. */
export interface ServiceNodeDefinition<P extends TSchema, S extends ServiceName> extends Omit<NodeDefinition<P>, 'services' | 'run'> {
  /** The services `run` reads; the host must provide each of them. */
  services: readonly S[];
  /** The node's work, as NodeDefinition.run, with `ctx.services` typed (each declared service present). */
  run(params: Static<P>, ctx: ServiceNodeContext<S>): Promise<unknown>;
}

/**
 * `defineNode` for node types that need host services: declares them and types `ctx.services`.
 * Returns a NodeDefinition whose `run` hands the node its context as is when every declared service
 * is there (the AI service bound to the execution once per drive, see withServices).
 */
export function defineServiceNode<P extends TSchema, S extends ServiceName>(def: ServiceNodeDefinition<P, S>): NodeDefinition<P> {
  const names = def.services;
  return { ...def, run: (params, ctx) => def.run(params, withServices(ctx, names)) };
}

/** The execution a drive's services object was bound to (bindDrive), and the services as the host gave them. */
interface DriveBinding {
  executionId: string;
  flow: string;
  dryRun: boolean;
  /** A copy of the services object before binding: reading it binds nothing. */
  given: Record<string, unknown>;
}

/**
 * The services objects bound so far, each with the execution it was bound to. The engine hands one
 * such object per drive, a copy of the host's (engine/run/execution-run.ts), so each is bound once,
 * in place, at its drive's first step that declares services, and the steps after it cost a lookup.
 */
const bindings = new WeakMap<object, DriveBinding>();

/**
 * `ctx` typed with the services `names`: ctx itself when each of them is there and ctx.services is
 * its drive's own (the engine's case: no object made per step). Otherwise, a context of this step's
 * own, derived from ctx, with a view of the services: a declared service the host did not give
 * throws when read, naming the step and the service (engines built without the registry's check
 * only), and a services object shared by several executions (contexts made by hand) gets the AI
 * service bound to this step's execution. Deriving with Object.create makes ctx a prototype, which
 * costs more than the step's own bookkeeping: kept to those two cases.
 */
function withServices<S extends ServiceName>(ctx: NodeContext, names: readonly S[]): ServiceNodeContext<S> {
  const binding = bindings.get(ctx.services) ?? bindDrive(ctx);
  const own = binding.executionId === ctx.executionId && binding.flow === ctx.flow && binding.dryRun === ctx.dryRun;
  if (own && names.every((name) => binding.given[name] != null)) return ctx as ServiceNodeContext<S>;
  return Object.create(ctx, { services: { value: stepView(ctx, binding.given, names), enumerable: true } });
}

/** Binds ctx.services, in place, to ctx's execution: its AI service (when there is one) names the execution (AiCallEvent.execution), bound on first read. */
function bindDrive(ctx: NodeContext): DriveBinding {
  const binding: DriveBinding = { executionId: ctx.executionId, flow: ctx.flow, dryRun: ctx.dryRun, given: { ...ctx.services } };
  bindAi(ctx, ctx.services, binding.given.ai as AiService | undefined);
  bindings.set(ctx.services, binding);
  return binding;
}

/**
 * The services as the host gave them (`given`) for one step, the AI service bound to ctx's
 * execution: reading a service of `names` the host did not give throws, naming the step and the
 * service.
 */
function stepView(ctx: NodeContext, given: Record<string, unknown>, names: readonly ServiceName[]): Record<string, unknown> {
  const services: Record<string, unknown> = { ...given };
  bindAi(ctx, services, given.ai as AiService | undefined);
  for (const name of names) {
    if (given[name] != null) continue;
    Object.defineProperty(services, name, {
      enumerable: true,
      get() {
        throw new Error(`step "${ctx.stepId}" needs ${SERVICE_DESCRIPTIONS[name]}, but none is configured (services.${name} is missing)`);
      },
    });
  }
  return services;
}

/** Makes `services.ai` the AI service `ai` bound to ctx's execution, made on first read; nothing when `ai` cannot be bound. */
function bindAi(ctx: NodeContext, services: Record<string, unknown>, ai: AiService | undefined): void {
  if (!ai?.forExecution) return;
  const execution = { id: ctx.executionId, flow: ctx.flow, dryRun: ctx.dryRun };
  let bound: AiService | undefined;
  Object.defineProperty(services, 'ai', {
    enumerable: true,
    configurable: true,
    get: () => (bound ??= ai.forExecution!(execution)),
  });
}
