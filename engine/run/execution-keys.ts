// Keys of executions (flow `concurrency:`): how a start's key is found. The store makes the replace
// atomic (ExecutionStore.insertReplacing); the engine only evaluates the key.
import { evaluateValue } from '../expressions.js';
import type { JsonValue, LoadedFlow } from '../types.js';

/** Longest key kept, characters (the database column holds 500). */
export const MAX_KEY_LENGTH = 500;

/**
 * A key as stored: text as is, a finite number or a boolean as text; undefined for null, undefined
 * or empty text (no key). Throws when the value is anything else (an object, a list) or longer than
 * MAX_KEY_LENGTH, naming `what`.
 */
export function keyText(value: JsonValue | undefined, what: string): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
    const text = String(value);
    if (text.length > MAX_KEY_LENGTH) throw new Error(`${what} is longer than ${MAX_KEY_LENGTH} characters`);
    return text;
  }
  throw new Error(`${what} must be text or a number, got ${JSON.stringify(value)}`);
}

/**
 * The key a new execution of `flow` gets: `explicit` when given (a flow.start `key`), else the
 * flow's `concurrency.key` evaluated over `scope` (trigger, vars, env, execution, now), else none.
 * Rejects when the expression fails or gives a value keyText refuses.
 */
export async function executionKey(flow: LoadedFlow, scope: object, explicit?: string): Promise<string | undefined> {
  if (explicit !== undefined) return keyText(explicit, `the key of a start of flow "${flow.name}"`);
  if (!flow.compiledConcurrencyKey) return undefined;
  const value = await evaluateValue(flow.compiledConcurrencyKey, scope);
  return keyText(value ?? null, `concurrency.key of flow "${flow.name}"`);
}
