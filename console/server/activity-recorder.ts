// Records the console overview's figures (`activity_events`, adapters/db/activity-store.ts) as the
// service runs: `serve` and `worker` wire it (cli/runtime.ts `activity`, the engine observer composed
// with metrics'); one-shot commands (`leadflow run`, `test`, `executions replay`) and dry runs record
// nothing. The engine stays domain-free: what a flow's record means for a clinic is read here.
//
// When a drive of an execution ends (engine observer `executionEnded`), its rows are written:
//   - what was held for it during the drive: each AI provider call its steps made (`ai_call`; the AI
//     service's onCall hook, attributed through AiCallEvent.execution) and each follow-up
//     sent (`followup_sent`: a successful `gateway.send` step of the flow FOLLOWUP_FLOW);
//   - when the status is final (success, failed, stopped, cancelled; not waiting): one `execution`
//     row (value: ms from its creation to its end), and, when its output holds a number
//     FIRST_CONTACT_OUTPUT (intake's rule-1 figure), one `first_contact` row.
// All rows of an execution get its clinic, the first of CLINIC_PATHS holding a whole number ≥ 1
// (or a numeric string), else null.
// Writes are queued one after another and never awaited by the engine. A write starts
// ACTIVITY_BATCH_MS after the first of its rows came (or when the write before it ends, if later),
// and the rows of every execution that ended meanwhile go with it in one INSERT (up to
// ACTIVITY_ROWS_PER_INSERT rows a statement): under load the overview costs one statement per
// batch, not one per execution, even on SQLite, whose writes finish before the next execution ends.
// A failed write is logged (warn) and its rows are lost: an execution never fails because of the
// overview. Rows not yet written when the process dies (held for a drive that never ended here, or
// waiting out ACTIVITY_BATCH_MS) are lost; at most MAX_HELD_EXECUTIONS executions are held, none
// longer than MAX_HELD_MS.
import type { AiCallEvent } from '../../adapters/ai/ai-service.js';
import { ACTIVITY_ROWS_PER_INSERT, type ActivityEvent, ActivityStore } from '../../adapters/db/activity-store.js';
import type { Database } from '../../adapters/db/database.js';
import type { EngineObserver, StepEndedEvent } from '../../engine/observer.js';
import type { Logger } from '../../engine/logger.js';
import { isFinalStatus } from '../../engine/statuses.js';
import type { ExecutionRecord } from '../../engine/types.js';

/** The flow whose successful `gateway.send` steps are follow-ups (flows/followup.yaml). */
export const FOLLOWUP_FLOW = 'followup';
/** The output member holding ms from the form to the first message (flows/intake.yaml `output`). */
export const FIRST_CONTACT_OUTPUT = 'form_to_first_message_ms';
/** Where an execution's clinic is looked for, in this order (intake, agent, handoff and lead-action set `vars.lead`; agent's trigger carries its instance's clinic; followup's and the generic form's body name it). */
export const CLINIC_PATHS: ReadonlyArray<readonly string[]> = [
  ['vars', 'lead', 'clinica_id'],
  ['vars', 'clinica_id'],
  ['trigger', 'auth', 'clinica_id'],
  ['trigger', 'body', 'clinica_id'],
];
/** Most executions with rows held at once; beyond it the oldest held are dropped. */
export const MAX_HELD_EXECUTIONS = 10_000;
/** Held rows older than this are dropped (a drive that ended elsewhere or never), ms: 6 hours. */
export const MAX_HELD_MS = 6 * 3_600_000;
/** How long the first row of a write waits for others before the write starts, ms (see the header). */
export const ACTIVITY_BATCH_MS = 50;
/** Most rows held for one execution (a loop of AI calls), beyond which more are dropped. */
const MAX_HELD_PER_EXECUTION = 1_000;

type HeldEvent = Omit<ActivityEvent, 'clinica_id'>;

/** The clinic of an execution (see CLINIC_PATHS), or null. */
export function clinicOf(record: Pick<ExecutionRecord, 'vars' | 'trigger'>): number | null {
  for (const path of CLINIC_PATHS) {
    let value: unknown = record;
    for (const key of path) value = value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    const n = typeof value === 'string' && /^\s*[0-9]{1,15}\s*$/.test(value) ? Number(value) : value;
    if (typeof n === 'number' && Number.isSafeInteger(n) && n >= 1) return n;
  }
  return null;
}

/** How an ActivityRecorder logs its write failures and reads the time. */
export interface ActivityRecorderOptions {
  logger: Logger;
  /** The clock of the rows' times; default Date.now. */
  now?: () => number;
}

/**
 * The overview's recorder (see the header): holds each execution's AI calls and follow-ups during a
 * drive and writes them, with the execution's final rows, to `activity_events` when the drive ends.
 * Writes nothing before open(); a failed write is logged and dropped, never thrown into an execution.
 */
export class ActivityRecorder {
  private store: ActivityStore | undefined;
  private readonly held = new Map<string, { since: number; events: HeldEvent[] }>();
  private writing: Promise<void> = Promise.resolve();
  /** Rows waiting for the next write (see the header), and whether that write is queued. */
  private readonly pending: ActivityEvent[] = [];
  private batchQueued = false;
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(options: ActivityRecorderOptions) {
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
  }

  /** Starts writing to `db` (openRuntime calls it once the database is open); before, nothing is written. */
  open(db: Database): void {
    this.store = new ActivityStore(db);
  }

  /** AiServiceOptions.onCall: the call is held for the execution whose step made it (none outside a step, or in a dry run). Never throws. */
  readonly aiCall = (event: AiCallEvent): void => {
    const execution = event.execution;
    if (!execution || execution.dryRun) return;
    this.hold(execution.id, {
      at: this.now(),
      kind: 'ai_call',
      label: event.model,
      outcome: event.outcome,
      value: event.input_tokens ?? null,
      value2: event.output_tokens ?? null,
      execution_id: execution.id,
    });
  };

  /** The engine observer part (compose it with metrics': engine/observer.ts composeObservers). */
  readonly observer: EngineObserver = {
    stepEnded: (event: StepEndedEvent) => {
      if (event.flow !== FOLLOWUP_FLOW || event.node_type !== 'gateway.send' || event.status !== 'success') return;
      this.hold(event.execution, { at: this.now(), kind: 'followup_sent', value: 1, execution_id: event.execution });
    },
    executionEnded: (record: Readonly<ExecutionRecord>) => {
      const held = this.held.get(record.id)?.events ?? [];
      this.held.delete(record.id);
      if (record.dry_run) return;
      const clinica_id = clinicOf(record);
      const events: ActivityEvent[] = [...held, ...this.finalEvents(record)].map((e) => ({ ...e, clinica_id }));
      if (events.length > 0) this.write(events);
    },
  };

  /** How many executions have rows held now, waiting for their drive to end (tests). */
  get heldExecutions(): number {
    return this.held.size;
  }

  /** Resolves when every write queued so far is done (tests; shutdown). */
  idle(): Promise<void> {
    return this.writing;
  }

  /** Deletes rows older than `olderThanDays` (cli/pruning.ts, with the executions' retention). */
  async prune(olderThanDays: number): Promise<number> {
    return this.store ? this.store.prune(olderThanDays) : 0;
  }

  /** The rows of an execution's end: none while waiting; else its `execution` row and its `first_contact`, if any. */
  private finalEvents(record: Readonly<ExecutionRecord>): HeldEvent[] {
    if (!isFinalStatus(record.status)) return [];
    const started = Date.parse(record.created_at);
    const ended = Date.parse(record.finished_at ?? record.updated_at) || this.now();
    const events: HeldEvent[] = [
      {
        at: ended,
        kind: 'execution',
        label: record.flow,
        outcome: record.status,
        value: Number.isFinite(started) ? Math.max(0, ended - started) : null,
        execution_id: record.id,
      },
    ];
    const output = record.output;
    const firstContact =
      record.status === 'success' && output && typeof output === 'object' && !Array.isArray(output)
        ? output[FIRST_CONTACT_OUTPUT]
        : undefined;
    if (typeof firstContact === 'number' && Number.isFinite(firstContact) && firstContact >= 0 && Number.isFinite(started)) {
      events.push({ at: started + firstContact, kind: 'first_contact', value: firstContact, execution_id: record.id });
    }
    return events;
  }

  private hold(executionId: string, event: HeldEvent): void {
    const now = this.now();
    let entry = this.held.get(executionId);
    if (!entry) {
      entry = { since: now, events: [] };
      this.held.set(executionId, entry);
      // Oldest first (insertion order): drop what is over the count or the age.
      for (const [id, other] of this.held) {
        if (this.held.size <= MAX_HELD_EXECUTIONS && now - other.since <= MAX_HELD_MS) break;
        this.held.delete(id);
      }
    }
    if (entry.events.length < MAX_HELD_PER_EXECUTION) entry.events.push(event);
  }

  /** Adds the rows to the next write, queuing it ACTIVITY_BATCH_MS from now, after the one under way, when none is queued yet (see the header). */
  private write(events: ActivityEvent[]): void {
    const store = this.store;
    if (!store) return;
    this.pending.push(...events);
    if (this.batchQueued) return;
    this.batchQueued = true;
    const gathered = new Promise<void>((resolve) => setTimeout(resolve, ACTIVITY_BATCH_MS));
    this.writing = Promise.all([this.writing, gathered]).then(async () => {
      this.batchQueued = false;
      const rows = this.pending.splice(0);
      for (let i = 0; i < rows.length; i += ACTIVITY_ROWS_PER_INSERT) await this.insert(store, rows.slice(i, i + ACTIVITY_ROWS_PER_INSERT));
    });
  }

  /** One INSERT of `rows`; a failure is logged, never thrown. */
  private async insert(store: ActivityStore, rows: ActivityEvent[]): Promise<void> {
    try {
      await store.insert(rows);
    } catch (err) {
      this.logger.warn(
        { err: err instanceof Error ? err.message : String(err), rows: rows.length, execution: rows[0]?.execution_id },
        'recording overview activity failed (these figures are lost)',
      );
    }
  }
}
