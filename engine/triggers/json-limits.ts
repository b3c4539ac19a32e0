// Limits on the shape of an inbound JSON body (webhooks, the admin API, the console's JSON routes),
// checked right after parsing and before anything is recorded: a body within the byte limit can
// still nest thousands of levels deep (a few KB) and overflow the stack of whatever walks it later
// (validation, cloning, masking, JSON.stringify of the execution record), or hold so many members
// that each walk costs seconds. The check walks the parsed value with an explicit stack (never
// recursion), so it cannot overflow itself, and stops at the first limit passed.
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** Deepest nesting accepted: objects and arrays inside one another, the body's own top level counting as level 1. */
export const MAX_JSON_DEPTH = 32;
/** Most keys accepted in one object. */
export const MAX_JSON_OBJECT_KEYS = 1_000;
/**
 * Most items accepted in one array. Meta's Cloud API batches up to ~3 MB of statuses into one array
 * on its 4 MiB route (a 2 MiB batch holds ~10,500), so this stays well above what a byte limit lets
 * real senders reach.
 */
export const MAX_JSON_ARRAY_ITEMS = 100_000;
/**
 * Most values accepted in one body: every object, array, string, number, boolean and null, the body
 * itself included. A 4 MiB batch of real statuses holds ~150,000; a walk of this many takes tens of ms.
 */
export const MAX_JSON_VALUES = 1_000_000;

/** The status every limit of this module is answered with (the body is too large in shape, not in bytes). */
export const JSON_LIMIT_STATUS = 413;

/** Longest key shown in a problem's path, characters (a longer one is cut and ends in `…`). */
const SHOWN_KEY_LENGTH = 40;

/** A body past a limit: the error (naming the limit) and where, as the `{"error", "details"}` of an answer. */
export interface JsonLimitProblem {
  error: string;
  details: Array<{ path: string; message: string }>;
}

/** One value still to visit: its depth (containers only count) and how it was reached, for the path. */
interface Visit {
  value: unknown;
  depth: number;
  parent: Visit | undefined;
  key: string | number | undefined;
}

/** The dotted path of `visit` (`respostas.a[2].b`), `(body)` for the top level. */
function pathOf(visit: Visit): string {
  const parts: string[] = [];
  for (let v: Visit | undefined = visit; v?.parent; v = v.parent) {
    if (typeof v.key === 'number') parts.push(`[${v.key}]`);
    else {
      const key = v.key ?? '';
      parts.push(`.${key.length > SHOWN_KEY_LENGTH ? `${key.slice(0, SHOWN_KEY_LENGTH)}…` : key}`);
    }
  }
  const path = parts.reverse().join('').replace(/^\./, '');
  return path === '' ? '(body)' : path;
}

function problem(error: string, at: Visit, message: string): JsonLimitProblem {
  return { error, details: [{ path: pathOf(at), message }] };
}

/**
 * The first limit `value` passes (MAX_JSON_DEPTH, MAX_JSON_OBJECT_KEYS, MAX_JSON_ARRAY_ITEMS,
 * MAX_JSON_VALUES), or undefined when it holds to all of them. `value` is what JSON.parse returns
 * (plain objects, arrays, primitives); own enumerable keys are counted, `__proto__` included.
 * Iterative: any depth of `value` is safe to check.
 */
export function jsonLimitProblem(value: unknown): JsonLimitProblem | undefined {
  const pending: Visit[] = [{ value, depth: 0, parent: undefined, key: undefined }];
  let values = 0;
  while (pending.length > 0) {
    const visit = pending.pop()!;
    if (++values > MAX_JSON_VALUES)
      return problem(`body holds more than ${MAX_JSON_VALUES} values`, visit, `at most ${MAX_JSON_VALUES} values in one body`);
    const v = visit.value;
    if (v === null || typeof v !== 'object') continue;
    const depth = visit.depth + 1;
    if (depth > MAX_JSON_DEPTH)
      return problem(
        `body nested deeper than ${MAX_JSON_DEPTH} levels`,
        visit,
        `level ${depth}: at most ${MAX_JSON_DEPTH} levels of nesting`,
      );
    if (Array.isArray(v)) {
      if (v.length > MAX_JSON_ARRAY_ITEMS)
        return problem(
          `body has an array of more than ${MAX_JSON_ARRAY_ITEMS} items`,
          visit,
          `${v.length} items: at most ${MAX_JSON_ARRAY_ITEMS}`,
        );
      for (let i = v.length - 1; i >= 0; i--) pending.push({ value: v[i], depth, parent: visit, key: i });
      continue;
    }
    const keys = Object.keys(v);
    if (keys.length > MAX_JSON_OBJECT_KEYS)
      return problem(
        `body has an object of more than ${MAX_JSON_OBJECT_KEYS} keys`,
        visit,
        `${keys.length} keys: at most ${MAX_JSON_OBJECT_KEYS}`,
      );
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      pending.push({ value: (v as Record<string, unknown>)[key], depth, parent: visit, key });
    }
  }
  return undefined;
}

/** How a route answers an error: `{"error", "details"}` with that status. */
export type SendError = (res: Response, status: number, error: string, details?: unknown[]) => void;

/**
 * Answers JSON_LIMIT_STATUS with the problem and returns true when `value` passes a limit; else
 * returns false and answers nothing.
 */
export function refuseOverLimits(res: Response, value: unknown, sendError: SendError): boolean {
  const found = jsonLimitProblem(value);
  if (!found) return false;
  sendError(res, JSON_LIMIT_STATUS, found.error, found.details);
  return true;
}

/**
 * A middleware checking the JSON `body(req, res)` returns (e.g. `req.body` after express.json):
 * JSON_LIMIT_STATUS when it passes a limit, else on to the next.
 */
export function enforceJsonLimits(sendError: SendError, body: (req: Request, res: Response) => unknown): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!refuseOverLimits(res, body(req, res), sendError)) next();
  };
}
