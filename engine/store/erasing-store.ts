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
//     status (success, failed, stopped).
// Step 2 lives in this process's memory for `ttlMs` (default 24 h): an execution that ends in
// another process, or after a restart, is not scrubbed by it.
//
// Every other member of the wrapped store (list, get, prune, leases ...) is the wrapped store's own,
// unchanged, so the decorator can stand wherever the store stood.
import type { ExecutionRecord } from '../types.js';
import type { ExecutionStore } from './execution-store.js';
import { CompiledErasure, type Erasure, type PayloadEraser, type RecordSummary } from './erasure.js';

export interface ExecutionEraser {
  /**
   * Erases the person `erasure` describes from every stored execution now and from what
   * `executionId` (the caller's own execution) and its children write later; see the file comment.
   * `erased`: records rewritten now; `pending`: the person's executions still running or waiting,
   * erased when they end.
   */
  eraseExecutions(executionId: string, erasure: Erasure): Promise<{ erased: number; pending: number }>;
}

export interface ErasingStoreOptions {
  /** How long the erasure of later writes stays armed, ms. Default 24 h. */
  ttlMs?: number;
  now?: () => number;
}

const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;
const FINAL = new Set(['success', 'failed', 'stopped']);
/** Store methods that write a record given as their first argument. */
const RECORD_WRITES = ['insert', 'update', 'insertLeased'] as const;

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

class Erasures {
  private armed: ArmedErasure[] = [];
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly inner: ExecutionStore & PayloadEraser,
    options: ErasingStoreOptions,
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** The record as it may be stored: scrubbed by every armed erasure that claims it. Never changes its argument. */
  prepare(record: ExecutionRecord): ExecutionRecord {
    if (this.armed.length === 0) return record;
    const now = this.now();
    this.armed = this.armed.filter((a) => a.expiresAt > now);
    let out = record;
    for (const a of this.armed) {
      if (claims(a.owners, out)) out = a.erasure.scrubRecord(out, true);
      else if (claims(a.deferred, out) && FINAL.has(out.status)) out = a.erasure.scrubRecord(out);
    }
    return out;
  }

  async erase(executionId: string, erasure: Erasure): Promise<{ erased: number; pending: number }> {
    const compiled = new CompiledErasure(erasure);
    if (compiled.needles.length === 0) return { erased: 0, pending: 0 };
    const armed: ArmedErasure = { erasure: compiled, owners: new Set([executionId]), deferred: new Set(), expiresAt: this.now() + this.ttlMs };
    // Armed first: a write racing with the pass below is scrubbed on its way in.
    this.armed.push(armed);
    const spare = (r: RecordSummary) => {
      if (claims(armed.owners, r)) return false;
      if (r.status !== 'running' && r.status !== 'waiting') return false;
      armed.deferred.add(r.id);
      return true;
    };
    const { erased, spared } = await this.inner.erasePayloads(erasure, spare);
    // A spared execution may have ended between the pass reading it and it being armed: look again.
    let late = 0;
    let pending = 0;
    for (const id of spared) {
      const record = await this.inner.get(id);
      if (!record || !FINAL.has(record.status)) {
        if (record) pending++;
        continue;
      }
      const scrubbed = compiled.scrubRecord(record);
      if (scrubbed !== record) {
        await this.inner.update(scrubbed);
        late++;
      }
    }
    return { erased: erased.length + late, pending };
  }
}

/**
 * `inner` with erasure: writes (insert, update, insertLeased) go through the armed erasures, and
 * `eraseExecutions` arms one. Everything else is `inner`'s.
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
    own[name] = (record: ExecutionRecord, ...rest: unknown[]) => (Reflect.get(inner, name, inner) as Write).call(inner, erasures.prepare(record), ...rest);
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

/** True when `value` offers `eraseExecutions` (what the `executions.erase` node needs in `ctx.services.executions`). */
export function isExecutionEraser(value: unknown): value is ExecutionEraser {
  return typeof (value as Partial<ExecutionEraser> | undefined)?.eraseExecutions === 'function';
}
