// The execution journal: what a save in the middle of a drive adds to the stored record, instead of
// the whole record written again. A drive appends one entry per save (the steps written or changed
// since the previous save, and the parts of the record that changed); the record is read as its
// stored base with its entries applied in order (applyJournal). A drive that parks at a wait appends
// one last entry and marks the row waiting in the same write (ExecutionStore.park: the steps it ran
// are written once, not again whole), unless a part no entry carries changed (parkEntry); every
// other end (a stop, a failure, the end of the flow) writes the whole record again and drops its
// entries in the same write (ExecutionStore.update). So a drive in progress, one cut off by a crash,
// and a waiting execution have entries; an execution that ended has none.
//
// Applying an entry is idempotent and order-preserving: a step record replaces the stored one of the
// same key or is appended; vars replace the stored vars; the appended lists (outbound calls, started
// and cancelled flows) say from which index their items go.
import { cloneJson } from '../run/clone-json.js';
import type { ExecutionRecord, JsonObject, StepRecord } from '../types.js';

/** Items of an append-only list of the record, from index `from` on (the items before it are unchanged). */
export interface JournalTail<T> {
  from: number;
  items: T[];
}

/** One save of a drive in progress (see the file comment). Every part but `id`, `at` and `steps` is optional. */
export interface JournalEntry {
  /** The execution. */
  id: string;
  /** Its parent, when it has one (the erasing store needs it to know whose record it is). */
  parent_id?: string;
  /** When it was saved (ISO, ms): the record's `updated_at` once applied. */
  at: string;
  /** Step records written or changed since the previous save, whole, in the record's order. */
  steps: StepRecord[];
  /** The vars, whole, when they changed. */
  vars?: JsonObject;
  outbound?: JournalTail<ExecutionRecord['outbound'][number]>;
  started_flows?: JournalTail<NonNullable<ExecutionRecord['started_flows']>[number]>;
  cancelled_flows?: JournalTail<NonNullable<ExecutionRecord['cancelled_flows']>[number]>;
  /** The webhook's answer, when a respond step gave it since the previous save. */
  response?: NonNullable<ExecutionRecord['response']>;
}

function applyTail<T>(list: T[], tail: JournalTail<T> | undefined): T[] {
  if (!tail) return list;
  const out = list.slice(0, tail.from);
  out.push(...tail.items);
  return out;
}

/** Applies `entries` to `record` in order, in place, and returns it. The entries' objects become part of the record. */
export function applyJournal(record: ExecutionRecord, entries: readonly JournalEntry[]): ExecutionRecord {
  if (entries.length === 0) return record;
  const index = new Map<string, number>();
  for (const [i, step] of record.steps.entries()) index.set(step.key, i);
  for (const entry of entries) {
    for (const step of entry.steps) {
      const at = index.get(step.key);
      if (at === undefined) {
        index.set(step.key, record.steps.length);
        record.steps.push(step);
      } else record.steps[at] = step;
    }
    if (entry.vars) record.vars = entry.vars;
    record.outbound = applyTail(record.outbound, entry.outbound);
    if (entry.started_flows) record.started_flows = applyTail(record.started_flows ?? [], entry.started_flows);
    if (entry.cancelled_flows) record.cancelled_flows = applyTail(record.cancelled_flows ?? [], entry.cancelled_flows);
    if (entry.response) record.response = entry.response;
    if (entry.at > record.updated_at) record.updated_at = entry.at;
  }
  return record;
}

/**
 * What a drive has saved so far, to make the next journal entry of only what changed since. A step
 * record is taken as unchanged once saved with a final status (success, error, skipped, stopped): the
 * run never changes a finished step. Vars are compared by their JSON text.
 */
export class JournalCursor {
  private savedSteps: number;
  private openKeys: Set<string>;
  private savedVars: string;
  private savedOutbound: number;
  private savedStarted: number;
  private savedCancelled: number;
  private savedResponse: boolean;
  /** The record's parts no entry carries (rowParts), as stored: a park may leave them as they are while they match. */
  private readonly savedRow: Map<string, unknown>;

  /** `record` as it is stored now (read at the drive's start, or just inserted). */
  constructor(record: ExecutionRecord) {
    this.savedRow = rowParts(record);
    this.savedSteps = record.steps.length;
    this.openKeys = new Set(record.steps.filter((s) => !isFinishedStep(s)).map((s) => s.key));
    this.savedVars = JSON.stringify(record.vars);
    this.savedOutbound = record.outbound.length;
    this.savedStarted = record.started_flows?.length ?? 0;
    this.savedCancelled = record.cancelled_flows?.length ?? 0;
    this.savedResponse = record.response !== undefined;
  }

  /**
   * The entry of what `record` holds beyond what was saved, as a copy of what the run may still
   * change while the entry waits to be written (copyOfEntry: the finished step records are shared,
   * since the run never changes them); the cursor then counts it as saved.
   */
  next(record: ExecutionRecord, at: string): JournalEntry {
    const steps: StepRecord[] = [];
    for (let i = 0; i < record.steps.length; i++) {
      const step = record.steps[i]!;
      if (i < this.savedSteps && !this.openKeys.has(step.key)) continue;
      steps.push(step);
    }
    const entry: JournalEntry = { id: record.id, at, steps };
    if (record.parent_id !== undefined) entry.parent_id = record.parent_id;
    const vars = JSON.stringify(record.vars);
    if (vars !== this.savedVars) entry.vars = record.vars;
    if (record.outbound.length !== this.savedOutbound)
      entry.outbound = { from: this.savedOutbound, items: record.outbound.slice(this.savedOutbound) };
    const started = record.started_flows ?? [];
    if (started.length !== this.savedStarted) entry.started_flows = { from: this.savedStarted, items: started.slice(this.savedStarted) };
    const cancelled = record.cancelled_flows ?? [];
    if (cancelled.length !== this.savedCancelled)
      entry.cancelled_flows = { from: this.savedCancelled, items: cancelled.slice(this.savedCancelled) };
    if (record.response !== undefined && !this.savedResponse) entry.response = record.response;
    const copy = copyOfEntry(entry);
    this.savedSteps = record.steps.length;
    // Every step still open was in this entry: the open ones are those of it not finished.
    this.openKeys = new Set(steps.filter((s) => !isFinishedStep(s)).map((s) => s.key));
    this.savedVars = vars;
    this.savedOutbound = record.outbound.length;
    this.savedStarted = started.length;
    this.savedCancelled = cancelled.length;
    this.savedResponse = record.response !== undefined;
    return copy;
  }

  /**
   * The entry that parks `record` at a wait (ExecutionStore.park), as `next` gives it; undefined when
   * a part of the record no entry carries changed since the drive started (then it is written whole).
   */
  parkEntry(record: ExecutionRecord, at: string): JournalEntry | undefined {
    return sameRowParts(record, this.savedRow) ? this.next(record, at) : undefined;
  }
}

/** The parts of a record a journal entry carries, or a park writes (status, wake time, updated_at), or that never change (id). */
const CARRIED = new Set([
  'id',
  'status',
  'wake_at',
  'updated_at',
  'vars',
  'steps',
  'outbound',
  'started_flows',
  'cancelled_flows',
  'response',
]);

/**
 * The record's other parts (trigger, output, error, stop reason, key …) by name, each as it is: a
 * value, or the object itself (the run replaces such a part, it never changes one in place).
 */
function rowParts(record: ExecutionRecord): Map<string, unknown> {
  const parts = new Map<string, unknown>();
  for (const [key, value] of Object.entries(record)) if (!CARRIED.has(key) && value !== undefined) parts.set(key, value);
  return parts;
}

/** Whether `record`'s other parts are those of `saved` (rowParts), the same values and the same objects. */
function sameRowParts(record: ExecutionRecord, saved: Map<string, unknown>): boolean {
  const now = rowParts(record);
  if (now.size !== saved.size) return false;
  for (const [key, value] of now) if (saved.get(key) !== value || !saved.has(key)) return false;
  return true;
}

/**
 * A copy of `entry` the run cannot change: every part copied (cloneJson) but the step records with a
 * final status, which are shared — the run never changes a finished step record (ExecutionRun), and
 * stores and erasures read an entry's step records or copy them, never change them in place.
 */
export function copyOfEntry(entry: JournalEntry): JournalEntry {
  const { steps, ...rest } = entry;
  const copy = cloneJson(rest) as JournalEntry;
  copy.steps = steps.map((step) => (isFinishedStep(step) ? step : cloneJson(step)));
  return copy;
}

/** A step the run will not change again. */
function isFinishedStep(step: StepRecord): boolean {
  return step.status === 'success' || step.status === 'error' || step.status === 'skipped' || step.status === 'stopped';
}
