// The set of node types a host makes available to flows. The engine never imports node files:
// the CLI builds a registry from `nodes/` and hands it to the loader and the executor.
import type { NodeDefinition } from './types.js';

export class NodeRegistry {
  private readonly byType = new Map<string, NodeDefinition>();

  constructor(definitions: Iterable<NodeDefinition> = []) {
    for (const def of definitions) this.register(def);
  }

  register(def: NodeDefinition): this {
    if (this.byType.has(def.type)) throw new Error(`node type "${def.type}" is registered twice`);
    this.byType.set(def.type, def);
    return this;
  }

  get(type: string): NodeDefinition | undefined {
    return this.byType.get(type);
  }

  has(type: string): boolean {
    return this.byType.has(type);
  }

  /** All definitions, sorted by type name. */
  all(): NodeDefinition[] {
    return [...this.byType.values()].sort((a, b) => a.type.localeCompare(b.type));
  }

  types(): string[] {
    return this.all().map((d) => d.type);
  }
}
