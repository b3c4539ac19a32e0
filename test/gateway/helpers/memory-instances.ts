// In-memory InstanceDirectory for tests (the database adapter implements the real one).
import type { GatewayInstance, InstanceDirectory } from '../../../adapters/gateway/instance-directory.js';

export class MemoryInstanceDirectory implements InstanceDirectory {
  private readonly rows = new Map<number, GatewayInstance>();
  /** Ids looked up, in order. */
  readonly lookups: number[] = [];

  constructor(rows: GatewayInstance[] = []) {
    for (const row of rows) this.rows.set(row.id, row);
  }

  async get(id: number): Promise<GatewayInstance | undefined> {
    this.lookups.push(id);
    const row = this.rows.get(id);
    return row ? { ...row } : undefined;
  }
}
