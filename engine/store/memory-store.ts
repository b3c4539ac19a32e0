import type { ExecutionRecord } from '../types.js';
import type { ExecutionStore, ListOptions } from './execution-store.js';

/** In-process execution store; records are deep-copied in and out, as a database would. Lost on exit. */
export class MemoryExecutionStore implements ExecutionStore {
  private readonly records = new Map<string, ExecutionRecord>();

  async insert(record: ExecutionRecord): Promise<void> {
    if (this.records.has(record.id)) throw new Error(`execution ${record.id} already exists`);
    this.records.set(record.id, structuredClone(record));
  }

  async update(record: ExecutionRecord): Promise<void> {
    this.records.set(record.id, structuredClone(record));
  }

  async get(id: string): Promise<ExecutionRecord | undefined> {
    const record = this.records.get(id);
    return record ? structuredClone(record) : undefined;
  }

  async list(options: ListOptions = {}): Promise<ExecutionRecord[]> {
    const limit = options.limit ?? 20;
    // Reversed insertion order first, so records created in the same millisecond list newest first too.
    return [...this.records.values()]
      .reverse()
      .filter((r) => (!options.flow || r.flow === options.flow) && (!options.status || r.status === options.status))
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .slice(0, limit)
      .map((r) => structuredClone(r));
  }

  async listWaiting(): Promise<Array<{ id: string; wake_at: number | null }>> {
    return [...this.records.values()].filter((r) => r.status === 'waiting').map((r) => ({ id: r.id, wake_at: r.wake_at ?? null }));
  }
}
