// The set of node types a host makes available to flows. The engine never imports node files:
// the CLI builds a registry from `nodes/` and hands it to the loader and the executor.
import { MissingServiceError } from './errors/missing-service-error.js';
import type { NodeDefinition } from './types.js';

/**
 * A list of node types, whatever each one's params schema, as a NodeRegistry takes them: a new
 * array, in the order given; registers nothing and checks no duplicate (the registry does). A
 * `NodeDefinition<P>` (what defineNode returns) is taken as a NodeDefinition without a cast: its
 * `run` and params checks are method types, so each definition is checked here, against the
 * shape every node type shares.
 *
 * @example
 * ```ts
 * import { nodeList } from './engine/registry.js';
 * import setNode from './nodes/core/set.js';
 * import waitNode from './nodes/core/wait.js';
 *
 * export const someNodes = nodeList(setNode, waitNode);
 * ```
 */
export function nodeList(...definitions: readonly NodeDefinition[]): NodeDefinition[] {
  return [...definitions];
}

/**
 * The node types a host makes available to flows, keyed by `type`. The loader validates flows
 * against it (the flow schema is generated from it) and the engine runs steps with it.
 *
 * @example
 * ```ts
 * import { NodeRegistry } from './engine/registry.js';
 * import { loadFlowDirectory } from './engine/load/loader.js';
 * import setNode from './nodes/core/set.js';
 *
 * const registry = new NodeRegistry([setNode]);
 * const { flows, problems } = loadFlowDirectory('flows', registry); // a flow using another type is a problem
 * ```
 */
export class NodeRegistry {
  private readonly byType = new Map<string, NodeDefinition>();
  /** The definitions sorted by type, kept until the next register(). */
  private sorted: NodeDefinition[] | undefined;

  /** Registers each definition in order; throws on a type given twice. */
  constructor(definitions: Iterable<NodeDefinition> = []) {
    for (const def of definitions) this.register(def);
  }

  /** Adds a node type; throws when a node type of the same `type` is already registered. */
  register(def: NodeDefinition): this {
    if (this.byType.has(def.type)) throw new Error(`node type "${def.type}" is registered twice`);
    this.byType.set(def.type, def);
    this.sorted = undefined;
    return this;
  }

  /** The definition of `type`, or undefined when it is not registered. */
  get(type: string): NodeDefinition | undefined {
    return this.byType.get(type);
  }

  /** Whether `type` is registered. */
  has(type: string): boolean {
    return this.byType.has(type);
  }

  /**
   * Checks that `services` holds every service each registered node type declares (a value other
   * than undefined or null). For hosts, when they build their engine, so a missing service fails at
   * start rather than at the first step that needs it.
   * @throws MissingServiceError naming every node type and service that is missing.
   */
  requireServices(services: Readonly<Record<string, unknown>>): void {
    const missing = this.all().flatMap((def) =>
      (def.services ?? []).filter((name) => services[name] == null).map((service) => ({ type: def.type, service })),
    );
    if (missing.length > 0) throw new MissingServiceError(missing);
  }

  /**
   * All definitions, sorted by type name in UTF-16 code unit order (the same on every machine, whatever
   * its locale: the flow schema and `leadflow nodes` list types in this order). A new array per call.
   */
  all(): NodeDefinition[] {
    this.sorted ??= [...this.byType.values()].sort((a, b) => (a.type < b.type ? -1 : a.type > b.type ? 1 : 0));
    return [...this.sorted];
  }

  /** Every registered type name, sorted. */
  types(): string[] {
    return this.all().map((d) => d.type);
  }
}
