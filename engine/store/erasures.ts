// The erasures an erasing store (erasing-store.ts, whose file comment is the contract) applies: armed
// in this process's memory for `ttlMs`, and recorded in the store's erasure ledger for the writes of
// every process. The store (`inner`) is written through directly: what this class writes is already
// scrubbed.
import { randomUUID } from 'node:crypto';
import { isFinalStatus } from '../statuses.js';
import type { ExecutionRecord } from '../types.js';
import type { ExecutionStore } from './execution-store.js';
import type { JournalEntry } from './journal.js';
import { SharedReads } from './shared-reads.js';
import { CompiledErasure, type Erasure, type ErasureEntry, type PayloadEraser, type RecordSummary } from './erasure.js';

/** How an ErasingStore (and its Erasures) is set up; every member is optional. */
export interface ErasingStoreOptions {
  /** How long the erasure of later writes stays armed (in memory and in the ledger), ms. Default 24 h. */
  ttlMs?: number;
  /** Clock, ms since epoch. Default Date.now (tests pass their own). */
  now?: () => number;
}

const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;
/** Most ancestors looked up for a record of a child execution (a guard against a cycle of parent ids). */
const MAX_DEPTH = 32;

interface ArmedErasure {
  erasure: CompiledErasure;
  /** Every record these executions write is scrubbed: the eraser and the executions it started. */
  owners: Set<string>;
  /** The person's executions that were running or waiting: scrubbed when written with a final status. */
  deferred: Set<string>;
  expiresAt: number;
}

/** True when `record` is one of `ids` or a child of one; a child joins the set. */
function claims(ids: Set<string>, record: Pick<RecordSummary, 'id' | 'parent_id'>): boolean {
  if (ids.has(record.id)) return true;
  if (record.parent_id !== undefined && ids.has(record.parent_id)) {
    ids.add(record.id);
    return true;
  }
  return false;
}

/**
 * The erasures armed in this process (each for `ttlMs`) and the store's ledger of them: scrubs
 * records and journal entries on their way to `inner`, erases a person now (`erase`), and settles
 * ledger entries whose executions have all ended.
 */
export class Erasures {
  private armed: ArmedErasure[] = [];
  private readonly ttlMs: number;
  private readonly now: () => number;
  /** The live ledger entries as final writes read them: one read for the writes asked at about the same time (shared-reads.ts). */
  private readonly ledger: SharedReads<ErasureEntry[]>;

  constructor(
    private readonly inner: ExecutionStore & PayloadEraser,
    options: ErasingStoreOptions,
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.now = options.now ?? Date.now;
    this.ledger = new SharedReads(() => this.inner.liveErasures(this.now()));
  }

  /** The record as it may be stored: scrubbed by every armed erasure that claims it. Never changes its argument. */
  prepare(record: ExecutionRecord): ExecutionRecord {
    if (this.armed.length === 0) return record;
    const now = this.now();
    this.armed = this.armed.filter((a) => a.expiresAt > now);
    let out = record;
    for (const a of this.armed) {
      if (claims(a.owners, out)) out = a.erasure.scrubRecord(out, true);
      else if (claims(a.deferred, out) && isFinalStatus(out.status)) out = a.erasure.scrubRecord(out);
    }
    return out;
  }

  /** The entry as it may be stored: its parts scrubbed like those of its execution's record written running (prepare). */
  prepareEntry(entry: JournalEntry): JournalEntry {
    if (this.armed.length === 0) return entry;
    const parts: ExecutionRecord = {
      id: entry.id,
      flow: '',
      status: 'running',
      trigger: {},
      vars: entry.vars ?? {},
      steps: entry.steps,
      outbound: entry.outbound?.items ?? [],
      dry_run: false,
      created_at: entry.at,
      updated_at: entry.at,
      ...(entry.parent_id !== undefined ? { parent_id: entry.parent_id } : {}),
      ...(entry.response ? { response: entry.response } : {}),
      ...(entry.started_flows ? { started_flows: entry.started_flows.items } : {}),
      ...(entry.cancelled_flows ? { cancelled_flows: entry.cancelled_flows.items } : {}),
    };
    const out = this.prepare(parts);
    if (out === parts) return entry;
    const scrubbed: JournalEntry = { ...entry, steps: out.steps };
    if (entry.vars) scrubbed.vars = out.vars;
    if (entry.outbound) scrubbed.outbound = { from: entry.outbound.from, items: out.outbound };
    if (entry.response) scrubbed.response = out.response!;
    if (entry.started_flows) scrubbed.started_flows = { from: entry.started_flows.from, items: out.started_flows ?? [] };
    if (entry.cancelled_flows) scrubbed.cancelled_flows = { from: entry.cancelled_flows.from, items: out.cancelled_flows ?? [] };
    return scrubbed;
  }

  /**
   * Writes `record` with `write`: scrubbed by the armed erasures of this process and, when its
   * status is final, by the live ledger entries that name it or an ancestor; then settles the
   * entries naming it.
   */
  async write(record: ExecutionRecord, write: (record: ExecutionRecord) => Promise<unknown>): Promise<unknown> {
    let out = this.prepare(record);
    if (!isFinalStatus(out.status)) return write(out);
    const entries = await this.ledger.get();
    if (entries.length === 0) return write(out);
    let ancestors: string[] | undefined;
    const named: ErasureEntry[] = [];
    for (const entry of entries) {
      const ids = new Set(entry.execution_ids);
      let lineage = [out.id];
      if (ids.has(out.id)) named.push(entry);
      else if (out.parent_id !== undefined) {
        ancestors ??= await this.ancestors(out.parent_id);
        lineage = [out.id, ...ancestors];
      }
      const mine = lineage.filter((id) => ids.has(id));
      if (mine.length === 0) continue;
      out = new CompiledErasure(entry.erasure).scrubRecord(out, mine.includes(entry.eraser_id));
    }
    const result = await write(out);
    for (const entry of named) await this.settle(entry);
    return result;
  }

  /** `parentId` and its ancestors, nearest first, read from the store. */
  private async ancestors(parentId: string): Promise<string[]> {
    const out: string[] = [];
    for (
      let id: string | undefined = parentId;
      id !== undefined && out.length < MAX_DEPTH && !out.includes(id);
      id = (await this.inner.get(id))?.parent_id
    )
      out.push(id);
    return out;
  }

  /**
   * When every execution `entry` names has ended (or is gone): scrubs their records once more where
   * needed, deletes the entry and returns true. False while one still runs or waits.
   */
  private async settle(entry: ErasureEntry): Promise<boolean> {
    const records: ExecutionRecord[] = [];
    for (const id of entry.execution_ids) {
      const record = await this.inner.get(id);
      if (!record) continue;
      if (!isFinalStatus(record.status)) return false;
      records.push(record);
    }
    const compiled = new CompiledErasure(entry.erasure);
    for (const record of records) {
      const scrubbed = compiled.scrubRecord(record, record.id === entry.eraser_id);
      if (scrubbed !== record && JSON.stringify(scrubbed) !== JSON.stringify(record)) await this.inner.update(scrubbed);
    }
    await this.inner.dropErasure(entry.id);
    return true;
  }

  /**
   * After executions were cancelled in the store (a final status written without a record: nothing
   * went through `write`): settles the live ledger entries naming one of them, so an erasure that
   * spared a waiting execution scrubs it now rather than at the next prune.
   */
  async afterCancel(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    for (const entry of await this.inner.liveErasures(this.now()))
      if (entry.execution_ids.some((id) => ids.includes(id))) await this.settle(entry);
  }

  /** Settles every live ledger entry (see `settle`); returns how many were deleted. */
  async settleAll(): Promise<number> {
    let settled = 0;
    for (const entry of await this.inner.liveErasures(this.now())) if (await this.settle(entry)) settled++;
    return settled;
  }

  /** ErasingStore.eraseExecutions: arms the erasure, erases now, records it in the ledger (see erasing-store.ts). */
  async erase(executionId: string, erasure: Erasure): Promise<{ erased: number; pending: number }> {
    const compiled = new CompiledErasure(erasure);
    if (compiled.needles.length === 0) return { erased: 0, pending: 0 };
    const now = this.now();
    const armed: ArmedErasure = { erasure: compiled, owners: new Set([executionId]), deferred: new Set(), expiresAt: now + this.ttlMs };
    // Armed first: a write racing with the pass below is scrubbed on its way in.
    this.armed.push(armed);
    const spare = (r: RecordSummary) => {
      if (claims(armed.owners, r)) return false;
      if (r.status !== 'running' && r.status !== 'waiting') return false;
      armed.deferred.add(r.id);
      return true;
    };
    const { erased, spared } = await this.inner.erasePayloads(erasure, spare);
    // Then in the ledger, for the writes of every process (also after a restart of this one).
    const entry: ErasureEntry = {
      id: randomUUID(),
      erasure,
      eraser_id: executionId,
      execution_ids: [executionId, ...spared],
      created_at: now,
      expires_at: armed.expiresAt,
    };
    await this.inner.recordErasure(entry);
    // A spared execution may have ended between the pass reading it and the erasure being armed and
    // recorded: look again.
    let late = 0;
    let pending = 0;
    for (const id of spared) {
      const record = await this.inner.get(id);
      if (!record || !isFinalStatus(record.status)) {
        if (record) pending++;
        continue;
      }
      const scrubbed = compiled.scrubRecord(record);
      if (scrubbed !== record) {
        await this.inner.update(scrubbed);
        late++;
      }
    }
    // Nothing left to wait for (no eraser stored, e.g.): the entry goes at once.
    if (pending === 0) await this.settle(entry);
    return { erased: erased.length + late, pending };
  }
}
