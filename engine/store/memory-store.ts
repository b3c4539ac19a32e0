import { cloneJson } from '../run/clone-json.js';
import { isFinalStatus } from '../statuses.js';
import type { ExecutionRecord, ExecutionStatus } from '../types.js';
import { type ExecutionSummary, summaryOfRecord } from './execution-summary.js';
import { applyJournal, copyOfEntry, type JournalEntry } from './journal.js';
import type {
  CancelledFrom,
  ClaimResult,
  ExecutionStore,
  Lease,
  ListOptions,
  ParkedState,
  RunningExecution,
  StoredFlowVersion,
} from './execution-store.js';
import {
  CompiledErasure,
  type Erasure,
  type ErasureEntry,
  type PayloadEraser,
  type PayloadEraseResult,
  type RecordSummary,
} from './erasure.js';

/** `written` with the cancellation of `stored` kept: status, stop reason, replaced_by, finished_at, no wake time. */
function keepCancelled(stored: ExecutionRecord, written: ExecutionRecord): ExecutionRecord {
  const out: ExecutionRecord = { ...written, status: 'cancelled' };
  delete out.wake_at;
  for (const field of ['stop_reason', 'replaced_by', 'finished_at'] as const) {
    if (stored[field] !== undefined) out[field] = stored[field];
    else delete out[field];
  }
  return out;
}

/** A version no unfinished execution runs on is pruned once unused this long, ms (as on the database). */
const VERSION_UNUSED_MS = 86_400_000;
const DAY_MS = 86_400_000;

/** In-process execution store; records are deep-copied in and out, as a database would (cloneJson). Lost on exit. */
export class MemoryExecutionStore implements ExecutionStore, PayloadEraser {
  private readonly records = new Map<string, ExecutionRecord>();
  private readonly leases = new Map<string, Lease>();
  /** The erasure ledger (erasing-store.ts), shared by every erasing store over this one. */
  private readonly erasures = new Map<string, ErasureEntry>();
  /** The ids of the records with a key, by `flow` NUL `key` (a cancel by key reads only those; members are checked when read). */
  private readonly keyed = new Map<string, Set<string>>();
  /** Who cancelled an execution by key (cancelByKey's `by`), by execution id. */
  private readonly cancelledBy = new Map<string, string>();
  /** Flow versions by `flow` NUL `version`: their source and when they were last marked used (ms). */
  private readonly versions = new Map<string, { flow: string; version: string; source: string; usedAt: number }>();

  async insert(record: ExecutionRecord): Promise<void> {
    if (this.records.has(record.id)) throw new Error(`execution ${record.id} already exists`);
    this.records.set(record.id, cloneJson(record));
    this.index(record);
  }

  async update(record: ExecutionRecord): Promise<void> {
    const stored = this.records.get(record.id);
    if (stored?.status !== 'cancelled') {
      this.records.set(record.id, cloneJson(record));
      this.index(record);
      return;
    }
    this.records.set(record.id, keepCancelled(stored, cloneJson(record)));
  }

  /** Files a record with a key under its flow and key (see `keyed`). */
  private index(record: ExecutionRecord): void {
    if (record.concurrency_key === undefined) return;
    const name = `${record.flow}\0${record.concurrency_key}`;
    let ids = this.keyed.get(name);
    if (!ids) {
      ids = new Set();
      this.keyed.set(name, ids);
    }
    ids.add(record.id);
  }

  /** The stored records filed under `flow` and `key` that still have them. */
  private recordsOfKey(flow: string, key: string): ExecutionRecord[] {
    const out: ExecutionRecord[] = [];
    for (const id of this.keyed.get(`${flow}\0${key}`) ?? []) {
      const r = this.records.get(id);
      if (r?.flow === flow && r.concurrency_key === key) out.push(r);
    }
    return out;
  }

  /**
   * Applied to the stored copy at once (this store keeps no separate journal), as a copy of the entry
   * but for its finished step records, which are kept as they are (copyOfEntry: nothing changes a
   * finished step record in place; `get` hands out copies).
   */
  async appendJournal(entry: JournalEntry): Promise<ExecutionStatus | undefined> {
    const stored = this.records.get(entry.id);
    if (!stored) return undefined;
    applyJournal(stored, [copyOfEntry(entry)]);
    return stored.status;
  }

  /** Applied to the stored copy at once, as appendJournal (this store keeps no separate journal). */
  async park(entry: JournalEntry, wake: ParkedState): Promise<boolean> {
    const stored = this.records.get(entry.id);
    if (!stored) return false;
    applyJournal(stored, [copyOfEntry(entry)]);
    if (stored.status === 'cancelled') return true;
    stored.status = 'waiting';
    if (wake.wake_at === null) delete stored.wake_at;
    else stored.wake_at = wake.wake_at;
    stored.updated_at = wake.updated_at;
    return true;
  }

  async statusOf(id: string): Promise<ExecutionStatus | undefined> {
    return this.records.get(id)?.status;
  }

  async insertReplacing(record: ExecutionRecord, lease?: Lease): Promise<string[]> {
    const key = record.concurrency_key;
    if (key === undefined) throw new Error(`execution ${record.id} has no key`);
    const cancelled = this.cancelUnfinished(record.flow, key, `replaced by execution ${record.id}`, record.id);
    if (lease) await this.insertLeased(record, lease);
    else await this.insert(record);
    return cancelled;
  }

  async cancelByKey(flow: string, key: string, reason: string, by?: string): Promise<string[]> {
    const ids = this.cancelUnfinished(flow, key, reason);
    if (by === undefined) return ids;
    for (const id of ids) this.cancelledBy.set(id, by);
    if (ids.length > 0) return ids;
    return this.recordsOfKey(flow, key)
      .filter((r) => r.status === 'cancelled' && this.cancelledBy.get(r.id) === by)
      .map((r) => r.id);
  }

  /** Synchronous, so atomic here: a claim never sees it half done. */
  async cancelById(id: string, reason: string): Promise<CancelledFrom | undefined> {
    const r = this.records.get(id);
    if (r?.status !== 'running' && r?.status !== 'waiting') return undefined;
    const from = r.status;
    this.markCancelled(r, reason, new Date().toISOString());
    return from;
  }

  /** Cancels the running and waiting executions of `flow` under `key`; synchronous, so atomic here. */
  private cancelUnfinished(flow: string, key: string, reason: string, replacedBy?: string): string[] {
    const now = new Date().toISOString();
    const ids: string[] = [];
    for (const r of this.recordsOfKey(flow, key)) {
      if (r.status !== 'running' && r.status !== 'waiting') continue;
      this.markCancelled(r, reason, now, replacedBy);
      ids.push(r.id);
    }
    return ids;
  }

  /** The stored record `r` cancelled at `now` (ISO): status, stop reason, finished, no wake time, no lease. */
  private markCancelled(r: ExecutionRecord, reason: string, now: string, replacedBy?: string): void {
    Object.assign(r, { status: 'cancelled', stop_reason: reason, finished_at: now, updated_at: now });
    delete r.wake_at;
    if (replacedBy !== undefined) r.replaced_by = replacedBy;
    this.leases.delete(r.id);
  }

  async get(id: string): Promise<ExecutionRecord | undefined> {
    const record = this.records.get(id);
    return record ? cloneJson(record) : undefined;
  }

  async list(options: ListOptions = {}): Promise<ExecutionRecord[]> {
    const limit = options.limit ?? 20;
    // Reversed insertion order first, so records created in the same millisecond list newest first too.
    return [...this.records.values()]
      .reverse()
      .filter(
        (r) =>
          (!options.flow || r.flow === options.flow) &&
          (!options.status || r.status === options.status) &&
          (!options.version || (r.flow_version ?? '').startsWith(options.version)) &&
          containsAny(r, options.containing),
      )
      .sort((a, b) => b.created_at.localeCompare(a.created_at))
      .slice(0, limit)
      .map((r) => structuredClone(r));
  }

  /** list(options), summarised (this store holds no payloads apart from its records). */
  async listSummaries(options: ListOptions = {}): Promise<ExecutionSummary[]> {
    return (await this.list(options)).map(summaryOfRecord);
  }

  async resolveId(prefix: string): Promise<string | undefined> {
    if (prefix === '') return undefined;
    if (this.records.has(prefix)) return prefix;
    const matches = [...this.records.keys()].filter((id) => id.startsWith(prefix));
    return matches.length === 1 ? matches[0] : undefined;
  }

  async prune(olderThanDays: number, now: number = Date.now()): Promise<number> {
    if (!Number.isFinite(olderThanDays) || olderThanDays < 0)
      throw new Error(`prune: olderThanDays must be a number >= 0, got ${olderThanDays}`);
    const cutoff = new Date(now - olderThanDays * DAY_MS).toISOString();
    const old = [...this.records.values()].filter(
      (r) => isFinalStatus(r.status) && (r.finished_at ?? r.updated_at) < cutoff && !this.parentUnfinished(r),
    );
    for (const r of old) {
      this.records.delete(r.id);
      if (r.concurrency_key !== undefined) this.keyed.get(`${r.flow}\0${r.concurrency_key}`)?.delete(r.id);
      this.leases.delete(r.id);
      this.cancelledBy.delete(r.id);
    }
    await this.pruneErasures(now);
    await this.pruneFlowVersions(now);
    return old.length;
  }

  /** Whether the record's parent is running or waiting (it reads the record's result when it resumes). */
  private parentUnfinished(r: ExecutionRecord): boolean {
    const parent = r.parent_id !== undefined ? this.records.get(r.parent_id) : undefined;
    return parent?.status === 'running' || parent?.status === 'waiting';
  }

  async listWaiting(): Promise<Array<{ id: string; wake_at: number | null }>> {
    return [...this.records.values()].filter((r) => r.status === 'waiting').map((r) => ({ id: r.id, wake_at: r.wake_at ?? null }));
  }

  async insertLeased(record: ExecutionRecord, lease: Lease): Promise<void> {
    await this.insert(record);
    this.leases.set(record.id, { ...lease });
  }

  async claim(id: string, lease: Lease, takeOverFrom?: string): Promise<ClaimResult> {
    const record = this.records.get(id);
    if (!record) return {};
    const held = this.leases.get(id);
    if (record.status === 'running' && held && held.until > Date.now() && held.owner !== lease.owner && held.owner !== takeOverFrom)
      return { heldUntil: held.until };
    if (record.status !== 'waiting' && record.status !== 'running') return {};
    record.status = 'running';
    this.leases.set(id, { ...lease });
    return { record: cloneJson(record) };
  }

  async renewLease(id: string, lease: Lease): Promise<boolean> {
    const held = this.leases.get(id);
    if (this.records.get(id)?.status !== 'running' || !held || held.owner !== lease.owner) return false;
    held.until = lease.until;
    return true;
  }

  async listRunning(): Promise<RunningExecution[]> {
    return [...this.records.values()]
      .filter((r) => r.status === 'running')
      .map((r) => ({
        id: r.id,
        flow: r.flow,
        lease_until: this.leases.get(r.id)?.until ?? null,
        lease_owner: this.leases.get(r.id)?.owner ?? null,
      }));
  }

  async saveFlowVersion(v: StoredFlowVersion): Promise<void> {
    const key = `${v.flow}\0${v.version}`;
    const stored = this.versions.get(key);
    if (stored) stored.usedAt = Date.now();
    else this.versions.set(key, { flow: v.flow, version: v.version, source: v.source, usedAt: Date.now() });
  }

  async getFlowVersion(flow: string, version: string): Promise<string | undefined> {
    return this.versions.get(`${flow}\0${version}`)?.source;
  }

  async pruneFlowVersions(now: number = Date.now()): Promise<number> {
    const running = new Set(
      [...this.records.values()].filter((r) => !isFinalStatus(r.status)).map((r) => `${r.flow}\0${r.flow_version ?? ''}`),
    );
    let pruned = 0;
    for (const [key, v] of this.versions) {
      if (v.usedAt >= now - VERSION_UNUSED_MS || running.has(key)) continue;
      this.versions.delete(key);
      pruned++;
    }
    return pruned;
  }

  /** Rewrites the person's records (erasure.ts), except those `spare` keeps. */
  async erasePayloads(erasure: Erasure, spare: (record: RecordSummary) => boolean = () => false): Promise<PayloadEraseResult> {
    const compiled = new CompiledErasure(erasure);
    const result: PayloadEraseResult = { erased: [], spared: [] };
    for (const record of this.records.values()) {
      if (!compiled.matches(record)) continue;
      if (spare({ id: record.id, status: record.status, ...(record.parent_id !== undefined ? { parent_id: record.parent_id } : {}) })) {
        result.spared.push(record.id);
        continue;
      }
      const scrubbed = compiled.scrubRecord(record);
      this.records.set(record.id, scrubbed);
      this.index(scrubbed);
      result.erased.push(record.id);
    }
    return result;
  }

  async recordErasure(entry: ErasureEntry): Promise<void> {
    if (this.erasures.has(entry.id)) throw new Error(`erasure ${entry.id} already exists`);
    this.erasures.set(entry.id, structuredClone(entry));
  }

  async liveErasures(now: number): Promise<ErasureEntry[]> {
    return [...this.erasures.values()].filter((e) => e.expires_at > now).map((e) => structuredClone(e));
  }

  async dropErasure(id: string): Promise<boolean> {
    return this.erasures.delete(id);
  }

  async pruneErasures(now: number): Promise<number> {
    let pruned = 0;
    for (const [id, entry] of this.erasures) {
      if (entry.expires_at <= now) {
        this.erasures.delete(id);
        pruned++;
      }
    }
    return pruned;
  }
}

/** Whether the record's trigger, vars or key hold one of `texts` (no filter when `texts` has none). */
function containsAny(r: ExecutionRecord, texts: string[] | undefined): boolean {
  const needles = (texts ?? []).filter((t) => t !== '');
  if (needles.length === 0) return true;
  const haystack = `${JSON.stringify(r.trigger)}\n${JSON.stringify(r.vars)}\n${r.concurrency_key ?? ''}`;
  return needles.some((n) => haystack.includes(n));
}
