// The execution store handed to the engine, with erasure (data protection, `excluir`): a decorator
// over any store that can rewrite its records (PayloadEraser: the database and the in-memory store).
//
// An execution that erases a person (the `executions.erase` node) is still running: the engine
// saves its in-memory record again after each step and when it ends, with the data the erasure just
// removed. So `eraseExecutions` does two things:
//  1. now: rewrites every stored record of the person (erasure.ts), except executions still running
//     or waiting (other than the eraser and its children), which need their data to go on;
//  2. later: from then on, every record the erasing execution writes, and every record of an
//     execution it starts (children, at any depth), is scrubbed on its way to the store, whatever its
//     status; the person's executions spared in 1 are scrubbed when they are written with a final
//     status (success, failed, stopped, cancelled).
//
// Step 2 holds across processes and restarts through the erasure ledger of the store (when it has
// one: `recordErasure` ...; the database's is the `execution_erasures` table, shared by every
// `serve` and `worker`). The contract:
//  - `eraseExecutions` arms the erasure in this process's memory, does 1, then records a ledger
//    entry: the Erasure, the eraser's id and the ids of the executions it spared;
//  - every write of a record with a final status reads the live entries (one small query; writes of
//    other statuses read nothing) and scrubs the record when an entry names it, or its parent or an
//    ancestor: whatever it holds when the eraser is among them, else when it is the person's. The
//    ledger is the truth: this holds for a write in any process, whatever its memory knows. Writes
//    of other statuses are scrubbed by this process's memory only (for `ttlMs`): an execution
//    resumed elsewhere may hold the person's data while it runs, never once it has ended;
//  - after such a write of an execution the entry names (and once when erasing), when every
//    execution the entry names has ended (or is gone), their records are scrubbed once more where
//    they still hold the person's data (a write that raced with the erasure) and the entry is
//    deleted. `prune` does the same for every live entry (a backstop for such races) and deletes
//    the expired ones. So the ledger holds the person's data only while some of their executions
//    are unfinished, `ttlMs` (default 24 h) at most; an execution that ends after that is not
//    scrubbed.
//
// A journal entry (appendJournal, a save of a drive in progress: never a final status) is scrubbed by
// this process's armed erasures like a write of its execution with status `running`.
//
// Every other member of the wrapped store (list, get, leases ...) is the wrapped store's own,
// unchanged, so the decorator can stand wherever the store stood; `prune`, when it has one, also
// settles the ledger as said above, and so do `cancelById` and `cancelByKey` for the executions they
// cancelled (a cancel ends an execution without writing its record through this decorator).
import { randomUUID } from 'node:crypto';
import { isFinalStatus } from '../statuses.js';
import type { ExecutionRecord } from '../types.js';
import type { ExecutionStore } from './execution-store.js';
import type { JournalEntry } from './journal.js';
import { CompiledErasure, type Erasure, type ErasureEntry, type PayloadEraser, type RecordSummary } from './erasure.js';

/** What the `executions.erase` node asks of the store (handed to nodes as `services.executions`). */
export interface ExecutionEraser {
  /**
   * Erases the person `erasure` describes from every stored execution now and from what
   * `executionId` (the caller's own execution) and its children write later; see the file comment.
   * `erased`: records rewritten now; `pending`: the person's executions still running or waiting,
   * erased when they end.
   */
  eraseExecutions(executionId: string, erasure: Erasure): Promise<{ erased: number; pending: number }>;
}

/** How an ErasingStore is set up; every member is optional. */
export interface ErasingStoreOptions {
  /** How long the erasure of later writes stays armed (in memory and in the ledger), ms. Default 24 h. */
  ttlMs?: number;
  /** Clock, ms since epoch. Default Date.now (tests pass their own). */
  now?: () => number;
}

const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;
/** Store methods that write a record given as their first argument. */
const RECORD_WRITES = ['insert', 'update', 'insertLeased', 'insertReplacing'] as const;
type CancelById = NonNullable<ExecutionStore['cancelById']>;
type CancelByKey = NonNullable<ExecutionStore['cancelByKey']>;
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

type Ledger = Required<Pick<PayloadEraser, 'recordErasure' | 'liveErasures' | 'dropErasure'>>;

/** True when `record` is one of `ids` or a child of one; a child joins the set. */
function claims(ids: Set<string>, record: Pick<RecordSummary, 'id' | 'parent_id'>): boolean {
  if (ids.has(record.id)) return true;
  if (record.parent_id !== undefined && ids.has(record.parent_id)) {
    ids.add(record.id);
    return true;
  }
  return false;
}

/** The store's ledger, when it has every member of one. */
function ledgerOf(store: PayloadEraser): Ledger | undefined {
  const { recordErasure, liveErasures, dropErasure } = store;
  if (typeof recordErasure !== 'function' || typeof liveErasures !== 'function' || typeof dropErasure !== 'function') return undefined;
  return { recordErasure: recordErasure.bind(store), liveErasures: liveErasures.bind(store), dropErasure: dropErasure.bind(store) };
}

class Erasures {
  private armed: ArmedErasure[] = [];
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly ledger: Ledger | undefined;

  constructor(
    private readonly inner: ExecutionStore & PayloadEraser,
    options: ErasingStoreOptions,
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.now = options.now ?? Date.now;
    this.ledger = ledgerOf(inner);
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
    if (!this.ledger || !isFinalStatus(out.status)) return write(out);
    const entries = await this.ledger.liveErasures(this.now());
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
    await this.ledger!.dropErasure(entry.id);
    return true;
  }

  /**
   * After executions were cancelled in the store (a final status written without a record: nothing
   * went through `write`): settles the live ledger entries naming one of them, so an erasure that
   * spared a waiting execution scrubs it now rather than at the next prune.
   */
  async afterCancel(ids: readonly string[]): Promise<void> {
    if (!this.ledger || ids.length === 0) return;
    for (const entry of await this.ledger.liveErasures(this.now()))
      if (entry.execution_ids.some((id) => ids.includes(id))) await this.settle(entry);
  }

  /** Settles every live ledger entry (see `settle`); returns how many were deleted. */
  async settleAll(): Promise<number> {
    if (!this.ledger) return 0;
    let settled = 0;
    for (const entry of await this.ledger.liveErasures(this.now())) if (await this.settle(entry)) settled++;
    return settled;
  }

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
    if (this.ledger) await this.ledger.recordErasure(entry);
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
    if (this.ledger && pending === 0) await this.settle(entry);
    return { erased: erased.length + late, pending };
  }
}

/**
 * `inner` with erasure: writes (insert, update, insertLeased, insertReplacing) go through the armed erasures and the
 * ledger, `eraseExecutions` arms one, and `cancelById`, `cancelByKey` and `prune` (when `inner` has them) settle the ledger too.
 * Everything else is `inner`'s.
 */
export function withErasure<S extends ExecutionStore & PayloadEraser>(inner: S, options: ErasingStoreOptions = {}): S & ExecutionEraser {
  const erasures = new Erasures(inner, options);
  const own: Record<PropertyKey, unknown> = {
    eraseExecutions: (executionId: string, erasure: Erasure) => erasures.erase(executionId, erasure),
  };
  // The writes: each takes the record first (insertLeased, of stores shared by several processes, too).
  type Write = (record: ExecutionRecord, ...rest: unknown[]) => Promise<unknown>;
  for (const name of RECORD_WRITES) {
    if (typeof Reflect.get(inner, name, inner) !== 'function') continue;
    own[name] = async (record: ExecutionRecord, ...rest: unknown[]) => {
      const result = await erasures.write(record, (out) => (Reflect.get(inner, name, inner) as Write).call(inner, out, ...rest));
      // insertReplacing resolves to the ids it cancelled.
      if (name === 'insertReplacing' && Array.isArray(result)) await erasures.afterCancel(result as string[]);
      return result;
    };
  }
  if (typeof Reflect.get(inner, 'appendJournal', inner) === 'function') {
    type Append = NonNullable<ExecutionStore['appendJournal']>;
    own.appendJournal = (entry: JournalEntry) =>
      (Reflect.get(inner, 'appendJournal', inner) as Append).call(inner, erasures.prepareEntry(entry));
  }
  // Cancels end executions without a write: the ledger entries naming them are settled after.
  if (typeof Reflect.get(inner, 'cancelById', inner) === 'function') {
    own.cancelById = async (id: string, reason: string) => {
      const from: unknown = await (Reflect.get(inner, 'cancelById', inner) as CancelById).call(inner, id, reason);
      if (from !== undefined) await erasures.afterCancel([id]);
      return from;
    };
  }
  if (typeof Reflect.get(inner, 'cancelByKey', inner) === 'function') {
    own.cancelByKey = async (flow: string, key: string, reason: string, by?: string) => {
      const ids = await (Reflect.get(inner, 'cancelByKey', inner) as CancelByKey).call(inner, flow, key, reason, by);
      await erasures.afterCancel(ids);
      return ids;
    };
  }
  // Pruning (serve, hourly): also ends the ledger entries whose executions have all ended.
  if (typeof Reflect.get(inner, 'prune', inner) === 'function') {
    own.prune = async (...args: unknown[]) => {
      const pruned: unknown = await (Reflect.get(inner, 'prune', inner) as (...a: unknown[]) => Promise<unknown>).apply(inner, args);
      await erasures.settleAll();
      return pruned;
    };
  }
  return new Proxy(inner, {
    get(target, prop) {
      if (Object.hasOwn(own, prop)) return own[prop];
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
    has(target, prop) {
      return Object.hasOwn(own, prop) || Reflect.has(target, prop);
    },
  }) as S & ExecutionEraser;
}
