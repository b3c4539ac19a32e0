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
import type { Static, TSchema } from '@sinclair/typebox';
import type { AiService } from '../adapters/ai/ai-service.js';
import type { Clock } from '../adapters/clock.js';
import type { TableOperations } from '../adapters/db/table-ops.js';
import type { GatewayClientFactory } from '../adapters/gateway/gateway-client.js';
import type { InstanceDirectory } from '../adapters/gateway/instance-directory.js';
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

/** `ctx` whose declared services, when absent, throw a message naming the step and the service on read. */
function withServices<S extends ServiceName>(ctx: NodeContext, names: readonly S[]): ServiceNodeContext<S> {
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
  // The AI service, when there is one, is the step's: its calls name this execution (AiCallEvent.execution).
  const ai = ctx.services.ai as AiService | undefined;
  if (ai?.forExecution) {
    let bound: AiService | undefined;
    Object.defineProperty(services, 'ai', {
      enumerable: true,
      get: () => (bound ??= ai.forExecution!({ id: ctx.executionId, flow: ctx.flow, dryRun: ctx.dryRun })),
    });
  }
  // The context's own members (the `signal` getter, the methods) stay as they are.
  return Object.create(ctx, { services: { value: services, enumerable: true } }) as ServiceNodeContext<S>;
}
