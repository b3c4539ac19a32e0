// In-memory InstanceDirectory for tests (the database adapter implements the real one). Rows given
// without the provider columns are uazapi instances (as migration 011 defaults them).
import type { GatewayInstance, InstanceDirectory } from '../../../adapters/gateway/instance-directory.js';

/** A row as tests write it: the provider columns optional. */
export type InstanceInput = Pick<GatewayInstance, 'id' | 'clinica_id' | 'server_url' | 'token'> & Partial<GatewayInstance>;

/** `row` with the provider columns filled as a uazapi row has them. */
export function instanceRow(row: InstanceInput): GatewayInstance {
  return { provider: 'uazapi', external_id: null, app_secret: null, verify_token: null, templates: null, ...row };
}

export class MemoryInstanceDirectory implements InstanceDirectory {
  private readonly rows = new Map<number, GatewayInstance>();
  /** Ids looked up, in order. */
  readonly lookups: number[] = [];

  constructor(rows: InstanceInput[] = []) {
    for (const row of rows) this.rows.set(row.id, instanceRow(row));
  }

  async get(id: number): Promise<GatewayInstance | undefined> {
    this.lookups.push(id);
    const row = this.rows.get(id);
    return row ? { ...row } : undefined;
  }
}
