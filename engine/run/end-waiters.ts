// Who awaits the end of an execution in this process: the webhook answer of a start (`responded`),
// the callers of Engine.waitForEnd, and the parent of a child execution (woken through the
// scheduler). Told once when a drive ends the execution or a cancel ends it without a drive.
import type { WebhookResponse } from '../engine-options.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import type { ExecutionRecord } from '../types.js';

/**
 * The end-of-execution waiters of this process, by execution id. A responder is told once (the
 * answer, or undefined when the execution ends without one); every finisher gets its own copy of
 * the final record; the parent, if any, is scheduled now.
 */
export class EndWaiters {
  private readonly responders = new Map<string, { resolve: (r: WebhookResponse | undefined) => void; reject: (err: unknown) => void }>();
  private readonly finishers = new Map<string, Array<(r: ExecutionRecord) => void>>();

  constructor(private readonly scheduler: Scheduler) {}

  /** Resolves with the webhook answer of `id` (respond), or undefined when it ends without one (ended). */
  response(id: string): Promise<WebhookResponse | undefined> {
    return new Promise((resolve, reject) => this.responders.set(id, { resolve, reject }));
  }

  /** Calls `resolve` with a copy of the record when `id` ends (ended). */
  onEnd(id: string, resolve: (record: ExecutionRecord) => void): void {
    const list = this.finishers.get(id) ?? [];
    list.push(resolve);
    this.finishers.set(id, list);
  }

  /** A respond step of `id` answered `response`: its responder is told (once). */
  respond(id: string, response: WebhookResponse | undefined): void {
    this.responders.get(id)?.resolve(response);
    this.responders.delete(id);
  }

  /** The record of `id` could not be stored (a deferred start, drives.ts): its responder's promise rejects with `err` (once). */
  failed(id: string, err: unknown): void {
    this.responders.get(id)?.reject(err);
    this.responders.delete(id);
  }

  /** `record` ended (a final status): its responder is told there is no answer, its finishers get copies, its parent is woken. */
  ended(record: ExecutionRecord): void {
    this.respond(record.id, undefined);
    for (const resolve of this.finishers.get(record.id) ?? []) resolve(structuredClone(record));
    this.finishers.delete(record.id);
    if (record.parent_id) this.scheduler.schedule(record.parent_id, Date.now());
  }
}
