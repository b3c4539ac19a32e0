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
import type { Static, TSchema } from '../engine/typebox.js';
import type { AiService } from '../adapters/ai/ai-service.js';
import type { Clock } from '../adapters/clock.js';
import type { TableOperations } from '../adapters/db/table-ops.js';
import type { GatewayClientFactory } from '../adapters/gateway/gateway-client.js';
import type { InstanceDirectory } from '../adapters/gateway/instance-directory.js';
import type { GatewayProviderRegistry } from '../adapters/gateway/provider-registry.js';
import type { MediaStore } from '../adapters/gateway/media-cache.js';
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
  /** Optional: what "now" is for nodes that read the time of day (`hours.check`, `ai.agent`); absent means the system clock. */
  clock?: Clock;
};

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
};

/** The services a node declaring `S` reads: those typed as present, every other one as optional. */
export type ServicesOf<S extends ServiceName> = Required<Pick<NodeServices, S>> & Partial<NodeServices>;

/** The run context of a node declaring the services `S`. */
export interface ServiceNodeContext<S extends ServiceName> extends Omit<NodeContext, 'services'> {
  readonly services: ServicesOf<S>;
}

/** A node definition that names its services and gets them typed in `run`. */
export interface ServiceNodeDefinition<P extends TSchema, S extends ServiceName> extends Omit<NodeDefinition<P>, 'services' | 'run'> {
  /** The services `run` reads; the host must provide each of them. */
  services: readonly S[];
  run(params: Static<P>, ctx: ServiceNodeContext<S>): Promise<unknown>;
}

/** `defineNode` for node types that need host services: declares them and types `ctx.services`. */
export function defineServiceNode<P extends TSchema, S extends ServiceName>(def: ServiceNodeDefinition<P, S>): NodeDefinition<P> {
  return { ...def, run: (params, ctx) => def.run(params, withServices(ctx, def.services)) };
}

/** A drive's services view (driveView), with the execution it was built for. */
interface DriveView {
  executionId: string;
  flow: string;
  dryRun: boolean;
  services: Record<string, unknown>;
}

/**
 * The services views built so far, by the `ctx.services` object they were built from. The engine
 * hands one such object per drive (engine/run/step-context.ts), so each drive's view is built once,
 * at its first step that declares services; a context whose services object is shared by several
 * executions gets a view again whenever the execution changes.
 */
const driveViews = new WeakMap<object, DriveView>();

/**
 * `ctx` whose declared services, when absent, throw a message naming the step and the service on
 * read, and whose AI service (when there is one) names the execution. Its other members are ctx's.
 */
function withServices<S extends ServiceName>(ctx: NodeContext, names: readonly S[]): ServiceNodeContext<S> {
  let services: Record<string, unknown> | undefined;
  for (const name of names) {
    if (ctx.services[name] == null) {
      // A missing one names the step: a view of this step's own (engines built without the check only).
      services = stepView(ctx, names);
      break;
    }
  }
  services ??= driveView(ctx);
  return new ServicesContext(ctx, services) as unknown as ServiceNodeContext<S>;
}

/** The parameters of NodeContext's method `K`. */
type Args<K extends keyof NodeContext> = NonNullable<NodeContext[K]> extends (...args: infer A) => unknown ? A : never;

/**
 * `ctx` with `services` replaced: every other member is ctx's, read from it when read (a method is
 * called on ctx). A small object of its own per step (deriving one with Object.create from each
 * step's context would make every context a prototype, which costs more than the step's own
 * bookkeeping). An optional member is undefined when ctx's is.
 */
class ServicesContext implements NodeContext {
  constructor(
    private readonly ctx: NodeContext,
    readonly services: Record<string, unknown>,
  ) {}

  get executionId(): string {
    return this.ctx.executionId;
  }
  get flow(): string {
    return this.ctx.flow;
  }
  get stepId(): string {
    return this.ctx.stepId;
  }
  get attempt(): number {
    return this.ctx.attempt;
  }
  get dryRun(): boolean {
    return this.ctx.dryRun;
  }
  get signal(): AbortSignal {
    return this.ctx.signal;
  }
  get state(): NodeContext['state'] {
    return this.ctx.state;
  }
  log(...args: Args<'log'>): void {
    this.ctx.log(...args);
  }
  recordOutbound(...args: Args<'recordOutbound'>): boolean {
    return this.ctx.recordOutbound(...args);
  }
  runChildren(...args: Args<'runChildren'>): ReturnType<NodeContext['runChildren']> {
    return this.ctx.runChildren(...args);
  }
  childSlots(): string[] {
    return this.ctx.childSlots();
  }
  suspend(...args: Args<'suspend'>): never {
    return this.ctx.suspend(...args);
  }
  stop(...args: Args<'stop'>): never {
    return this.ctx.stop(...args);
  }
  setVars(...args: Args<'setVars'>): void {
    this.ctx.setVars(...args);
  }
  respond(...args: Args<'respond'>): void {
    this.ctx.respond(...args);
  }
  callFlow(...args: Args<'callFlow'>): ReturnType<NodeContext['callFlow']> {
    return this.ctx.callFlow(...args);
  }
  get checkpoint(): NodeContext['checkpoint'] {
    const ctx = this.ctx;
    return ctx.checkpoint ? (...args: Args<'checkpoint'>) => ctx.checkpoint!(...args) : undefined;
  }
  get interruptedPeersUntil(): NodeContext['interruptedPeersUntil'] {
    const ctx = this.ctx;
    return ctx.interruptedPeersUntil ? () => ctx.interruptedPeersUntil!() : undefined;
  }
  get startFlow(): NodeContext['startFlow'] {
    const ctx = this.ctx;
    return ctx.startFlow ? (...args: Args<'startFlow'>) => ctx.startFlow!(...args) : undefined;
  }
  get cancelFlow(): NodeContext['cancelFlow'] {
    const ctx = this.ctx;
    return ctx.cancelFlow ? (...args: Args<'cancelFlow'>) => ctx.cancelFlow!(...args) : undefined;
  }
}

/** The services view of ctx's drive (every declared service present): built once per drive, kept for its next steps. */
function driveView(ctx: NodeContext): Record<string, unknown> {
  const known = driveViews.get(ctx.services);
  if (known && known.executionId === ctx.executionId && known.flow === ctx.flow && known.dryRun === ctx.dryRun) return known.services;
  const services = boundServices(ctx, { ...ctx.services });
  driveViews.set(ctx.services, { executionId: ctx.executionId, flow: ctx.flow, dryRun: ctx.dryRun, services });
  return services;
}

/** A view for one step where a declared service is missing: reading that one throws, naming the step and the service. */
function stepView(ctx: NodeContext, names: readonly ServiceName[]): Record<string, unknown> {
  const services: Record<string, unknown> = { ...ctx.services };
  for (const name of names) {
    if (services[name] != null) continue;
    Object.defineProperty(services, name, {
      enumerable: true,
      get() {
        throw new Error(`step "${ctx.stepId}" needs ${SERVICE_DESCRIPTIONS[name]}, but none is configured (services.${name} is missing)`);
      },
    });
  }
  return boundServices(ctx, services);
}

/** `services` with the AI service, when there is one, bound to ctx's execution (its calls name it: AiCallEvent.execution), made on first read. */
function boundServices(ctx: NodeContext, services: Record<string, unknown>): Record<string, unknown> {
  const ai = ctx.services.ai as AiService | undefined;
  if (ai?.forExecution) {
    const execution = { id: ctx.executionId, flow: ctx.flow, dryRun: ctx.dryRun };
    let bound: AiService | undefined;
    Object.defineProperty(services, 'ai', {
      enumerable: true,
      get: () => (bound ??= ai.forExecution!(execution)),
    });
  }
  return services;
}
