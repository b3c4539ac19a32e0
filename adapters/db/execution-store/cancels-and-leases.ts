// Cancels and leases of the database execution store: cancelling by key (also when a new execution
// of the key is inserted) and by id, each one atomic against a claim; and the leases by which several
// processes share the running executions (claim, renew, list the running ones).
import type { Knex } from 'knex';
import type { CancelledFrom, ClaimResult, Lease, RunningExecution } from '../../../engine/store/execution-store.js';
import type { ExecutionRecord } from '../../../engine/types.js';
import { ExecutionRows } from './rows.js';
import { type DbRow, TABLE } from './store-part.js';

/** How often cancelById tries again when the row moved between its two conditional UPDATEs. */
const CANCEL_BY_ID_ROUNDS = 5;

/** The columns a cancellation at `now` (ISO) sets: status, stop reason, finished, no wake time, no lease. */
function cancelledColumns(reason: unknown, now: unknown): DbRow {
  return {
    status: 'cancelled',
    stop_reason: reason,
    finished_at: now,
    updated_at: now,
    wake_at: null,
    lease_owner: null,
    lease_until: null,
  };
}

/**
 * The rows (ExecutionRows) with cancels and leases (see the file comment); the contract of each
 * method is ExecutionStore's.
 */
export class CancelsAndLeases extends ExecutionRows {
  /**
   * Inserts the record, then cancels the unfinished executions of its flow and key inserted before
   * it (lower `seq`): whatever the interleaving, the last one inserted is never cancelled and
   * cancels every other. SQLite has one writer at a time, so `seq` is the order of the writes;
   * PostgreSQL, where a sequence number is not the order of commits, does both in one transaction
   * holding an advisory lock on (flow, key). (Flow names have no `:`, so `flow:key` names one pair.)
   */
  async insertReplacing(record: ExecutionRecord, lease?: Lease): Promise<string[]> {
    const key = record.concurrency_key;
    if (key === undefined) throw new Error(`execution ${record.id} has no key`);
    const row = { ...this.toRow(record), ...(lease ? { lease_owner: lease.owner, lease_until: lease.until } : {}) };
    const replace = async (q: Knex) => {
      await this.run(...this.insertStatement(row), q);
      return this.cancelUnfinished(q, record.flow, key, `replaced by execution ${record.id}`, record.id, record.id);
    };
    if (this.db.dialect === 'sqlite') return replace(this.knex);
    return this.knex.transaction(async (trx) => {
      await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [`${record.flow}:${key}`]);
      return replace(trx);
    });
  }

  /**
   * One UPDATE (atomic against a claim of the same row); with `by`, on PostgreSQL in one statement
   * with the look for what `by` cancelled before (which sees the rows as they were before the UPDATE,
   * so none is listed twice). On SQLite, with `by`, that look comes first, in one read that also
   * finds the unfinished rows: the UPDATE runs only when there are some (most calls find none, and
   * then take no write lock).
   */
  async cancelByKey(flow: string, key: string, reason: string, by?: string): Promise<string[]> {
    if (by === undefined) return this.cancelUnfinished(this.knex, flow, key, reason);
    if (this.db.dialect === 'sqlite') {
      const seen = await this.unfinishedOrCancelledBy(flow, key, by);
      if (seen.some((r) => r.status !== 'cancelled')) {
        const ids = await this.cancelUnfinished(this.knex, flow, key, reason, undefined, undefined, by);
        if (ids.length > 0) return ids;
        return this.cancelledBefore(flow, key, by);
      }
      return seen.map((r) => r.id);
    }
    const now = new Date().toISOString();
    const result = await this.run(
      'store cancel-by-key-remembering',
      (knex, value) => {
        const columns = { ...cancelledColumns(value(2), value(3)), cancelled_by: value(4) };
        const cancel = knex(TABLE)
          .where({ flow: value(0), concurrency_key: value(1) })
          .whereIn('status', ['running', 'waiting'])
          .update(columns, ['id']);
        const { sql, bindings } = cancel.toSQL();
        return knex.raw(
          `with cancelled as (${sql}) select id, 1 as now from cancelled union all select id, 0 as now from ${TABLE} where flow = ? and concurrency_key = ? and status = 'cancelled' and cancelled_by = ?`,
          [...bindings, value(0), value(1), value(4)],
        );
      },
      [flow, key, reason, now, by],
    );
    const fresh = result.rows.filter((r) => Number(r.now) === 1).map((r) => String(r.id));
    return fresh.length > 0 ? fresh : result.rows.map((r) => String(r.id));
  }

  /** The executions of `flow` under `key` running or waiting, or that `by` cancelled, with their status (cancelByKey on SQLite). */
  private async unfinishedOrCancelledBy(flow: string, key: string, by: string): Promise<Array<{ id: string; status: string }>> {
    const { rows } = await this.run(
      'store unfinished-or-cancelled-by',
      (knex, value) =>
        knex(TABLE)
          .where({ flow: value(0), concurrency_key: value(1) })
          .where((q) => q.whereIn('status', ['running', 'waiting']).orWhere({ status: 'cancelled', cancelled_by: value(2) }))
          .orderBy('seq')
          .select('id', 'status'),
      [flow, key, by],
    );
    return rows.map((r) => ({ id: String(r.id), status: String(r.status) }));
  }

  /** The executions of `flow` under `key` that `by` cancelled (cancelByKey). */
  private async cancelledBefore(flow: string, key: string, by: string): Promise<string[]> {
    const { rows } = await this.run(
      'store cancelled-before',
      (knex, value) =>
        knex(TABLE)
          .where({ flow: value(0), concurrency_key: value(1), status: 'cancelled', cancelled_by: value(2) })
          .select('id'),
      [flow, key, by],
    );
    return rows.map((r) => String(r.id));
  }

  /**
   * One conditional UPDATE per status it may be cancelled from (waiting, then running), each atomic
   * against a claim of the row; when neither matched but the row moved between them (a claim, a
   * park), they are tried again. Resolves to the status the UPDATE that matched required.
   */
  async cancelById(id: string, reason: string): Promise<CancelledFrom | undefined> {
    for (let round = 0; round < CANCEL_BY_ID_ROUNDS; round++) {
      for (const from of ['waiting', 'running'] as const) {
        const now = new Date().toISOString();
        const changed = await this.knex(TABLE).where({ id, status: from }).update(cancelledColumns(reason, now));
        if (changed === 1) return from;
      }
      const row = (await this.knex(TABLE).where({ id }).first('status')) as DbRow | undefined;
      if (row?.status !== 'waiting' && row?.status !== 'running') return undefined;
    }
    return undefined;
  }

  /**
   * One UPDATE: status `cancelled` for the running and waiting executions of the flow and key (only
   * those with a `seq` below that of the execution `beforeId`, when given). Returns the ids it changed.
   */
  private async cancelUnfinished(
    q: Knex,
    flow: string,
    key: string,
    reason: string,
    replacedBy?: string,
    beforeId?: string,
    cancelledBy?: string,
  ): Promise<string[]> {
    const now = new Date().toISOString();
    const shape = [replacedBy !== undefined && 'replaced', beforeId !== undefined && 'before', cancelledBy !== undefined && 'by'];
    const { rows } = await this.run(
      `store cancel-unfinished ${shape.filter(Boolean).join(' ')}`,
      (knex, value) => {
        const query = knex(TABLE)
          .where({ flow: value(0), concurrency_key: value(1) })
          .whereIn('status', ['running', 'waiting']);
        if (beforeId !== undefined)
          query.where(
            'seq',
            '<',
            knex(TABLE)
              .where({ id: value(5) })
              .select('seq'),
          );
        return query.update(
          {
            ...cancelledColumns(value(2), value(3)),
            ...(replacedBy !== undefined ? { replaced_by: value(4) } : {}),
            ...(cancelledBy !== undefined ? { cancelled_by: value(6) } : {}),
          },
          ['id'],
        );
      },
      [flow, key, reason, now, replacedBy, beforeId, cancelledBy],
      q,
    );
    return rows.map((r) => String(r.id));
  }

  async insertLeased(record: ExecutionRecord, lease: Lease): Promise<void> {
    await this.insertRow({ ...this.toRow(record), lease_owner: lease.owner, lease_until: lease.until });
  }

  /** One conditional UPDATE, so two processes can never both take the same execution. */
  async claim(id: string, lease: Lease, takeOverFrom?: string): Promise<ClaimResult> {
    const now = Date.now();
    const taken = await this.knex(TABLE)
      .where({ id })
      .andWhere((q) =>
        q.where('status', 'waiting').orWhere((r) =>
          r.where('status', 'running').andWhere((l) =>
            l
              .whereNull('lease_until')
              .orWhere('lease_until', '<', now)
              .orWhereIn('lease_owner', takeOverFrom ? [lease.owner, takeOverFrom] : [lease.owner]),
          ),
        ),
      )
      .update({ status: 'running', lease_owner: lease.owner, lease_until: lease.until });
    if (taken === 1) return { record: await this.get(id) };
    const row = (await this.knex(TABLE).where({ id }).first('status', 'lease_until')) as DbRow | undefined;
    if (row?.status === 'running' && row.lease_until !== null && row.lease_until !== undefined)
      return { heldUntil: Number(row.lease_until) };
    return {};
  }

  async renewLease(id: string, lease: Lease): Promise<boolean> {
    const kept = await this.knex(TABLE).where({ id, status: 'running', lease_owner: lease.owner }).update({ lease_until: lease.until });
    return kept === 1;
  }

  async listRunning(): Promise<RunningExecution[]> {
    const rows = (await this.knex(TABLE)
      .where('status', 'running')
      .select('id', 'flow', 'lease_until', 'lease_owner')
      .orderBy('seq')) as DbRow[];
    return rows.map((r) => ({
      id: String(r.id),
      flow: String(r.flow),
      lease_until: r.lease_until === null || r.lease_until === undefined ? null : Number(r.lease_until),
      lease_owner: r.lease_owner === null || r.lease_owner === undefined ? null : String(r.lease_owner),
    }));
  }
}
