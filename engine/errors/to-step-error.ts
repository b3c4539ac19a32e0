import type { JsonValue, StepError } from '../types.js';

/** The JSON view of any thrown value, as recorded on a step and seen by `retry.when` as `error`. */
export function toStepError(err: unknown): StepError {
  if (err instanceof Error) {
    const e = err as Error & { status?: unknown; body?: unknown; code?: unknown; details?: unknown };
    const out: StepError = { name: e.name, message: e.message };
    if (typeof e.status === 'number') out.status = e.status;
    if (e.body !== undefined) out.body = e.body as JsonValue;
    if (typeof e.code === 'string') out.code = e.code;
    if (Array.isArray(e.details)) out.body = out.body ?? (e.details as JsonValue);
    return out;
  }
  if (err && typeof err === 'object') {
    const o = err as { message?: unknown; status?: unknown; body?: unknown; name?: unknown };
    return {
      name: typeof o.name === 'string' ? o.name : 'Error',
      message: typeof o.message === 'string' ? o.message : JSON.stringify(err),
      ...(typeof o.status === 'number' ? { status: o.status } : {}),
      ...(o.body !== undefined ? { body: o.body as JsonValue } : {}),
    };
  }
  return { name: 'Error', message: String(err) };
}
