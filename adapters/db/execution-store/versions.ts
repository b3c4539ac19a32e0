// Flow versions of the database execution store: the source of every version an execution runs on
// (the `flow_versions` table, migration 006), so it resumes on that version in any process.
import type { StoredFlowVersion } from '../../../engine/store/execution-store.js';
import { FINAL_STATUSES } from '../../../engine/statuses.js';
import { CancelsAndLeases } from './cancels-and-leases.js';
import { type DbRow, TABLE, VERSIONS } from './store-part.js';

/** A version no unfinished execution runs on is pruned once unused this long, ms (a process re-marks its versions hourly). */
const VERSION_UNUSED_MS = 86_400_000;

/** The rows, cancels and leases (CancelsAndLeases) with the stored flow versions (see the file comment); the contract of each method is ExecutionStore's. */
export class FlowVersionRows extends CancelsAndLeases {
  async saveFlowVersion(v: StoredFlowVersion): Promise<void> {
    const now = Date.now();
    await this.knex(VERSIONS)
      .insert({ flow: v.flow, version: v.version, source: v.source, created_at: now, used_at: now })
      .onConflict(['flow', 'version'])
      .merge({ used_at: now });
  }

  async getFlowVersion(flow: string, version: string): Promise<string | undefined> {
    const row = (await this.knex(VERSIONS).where({ flow, version }).first('source')) as DbRow | undefined;
    return typeof row?.source === 'string' ? row.source : undefined;
  }

  /**
   * Deletes the flow versions no unfinished execution runs on and no process marked used within a
   * day of `now` (ms); returns how many went.
   */
  async pruneFlowVersions(now: number = Date.now()): Promise<number> {
    const deleted = await this.knex(VERSIONS)
      .where('used_at', '<', now - VERSION_UNUSED_MS)
      .whereNotExists((q) =>
        q
          .select(this.knex.raw('1'))
          .from(TABLE)
          .whereRaw(`${TABLE}.flow = ${VERSIONS}.flow`)
          .whereRaw(`${TABLE}.flow_version = ${VERSIONS}.version`)
          .whereNotIn(`${TABLE}.status`, FINAL_STATUSES),
      )
      .del();
    return Number(deleted);
  }
}
