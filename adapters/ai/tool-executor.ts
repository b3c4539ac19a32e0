// Runs the tool calls a model asked for. Tool arguments are untrusted input: parsed as JSON and
// validated against the tool's JSON Schema before the handler sees them. Every failure (unknown
// tool, bad JSON, schema violation, handler error) becomes a tool result with `is_error` that the
// model sees — never an exception out of the agent run.
import AjvModule, { type ValidateFunction } from 'ajv';
import type { JsonObject, JsonValue } from '../../engine/types.js';
import type { ChatMessage, ToolCall, ToolSpec } from './chat-model.js';

const Ajv = AjvModule.default ?? AjvModule;
/** Separate from the engine's validator; fills schema defaults, never coerces types. */
const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false });

/** Longest tool result (JSON characters) handed back to the model; longer ones are cut with a marker. */
export const MAX_TOOL_RESULT_CHARS = 20_000;
/** Longest error text (characters) from a handler shown to the model. */
const MAX_ERROR_CHARS = 300;
/** Names both providers accept. */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A server-side tool. The caller binds it to the current lead: the handler must take any identity
 * (lead, clinic) from its closure, never from `args`. Declare `additionalProperties: false` in
 * `parameters` to reject arguments the tool does not expect. A handler may run more than once per
 * turn when a model attempt fails and the next model repeats it, so handlers must be idempotent.
 */
export interface AgentTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  handler: (args: JsonObject, context: { signal: AbortSignal }) => Promise<JsonValue>;
}

/** What happened to one tool call, for the run's trace. */
export interface ToolCallRecord {
  /** `provider:model` that asked for it. */
  model: string;
  name: string;
  /** Parsed arguments, or the raw text when it was not valid JSON. */
  arguments: JsonValue;
  ok: boolean;
  /** Why the call was rejected or failed. */
  error?: string;
  ms: number;
}

/**
 * The tools of one agent run, checked and compiled by prepareTools: their specs for the model, and
 * `run` for each call it makes.
 */
export interface PreparedTools {
  specs: ToolSpec[];
  /** Runs one call; a handler still running after `timeoutMs` is abandoned (its signal aborts) and reported as timed out. */
  run(
    call: ToolCall,
    model: string,
    signal: AbortSignal,
    now: () => number,
    timeoutMs: number,
  ): Promise<{ message: ChatMessage; record: ToolCallRecord }>;
}

/**
 * Compiled argument validators by the schema's JSON text: tools are often built per run with a
 * fresh schema object, and ajv keeps every schema object it compiled; keyed by text, each distinct
 * schema is compiled (and kept) once.
 */
const validators = new Map<string, ValidateFunction>();

/** The compiled validator of a tool's parameter schema, compiled on first sight of its JSON text. */
function validatorFor(parameters: AgentTool['parameters']): ValidateFunction {
  const text = JSON.stringify(parameters);
  let validate = validators.get(text);
  if (!validate) {
    validate = ajv.compile(JSON.parse(text) as object);
    validators.set(text, validate);
  }
  return validate;
}

/** The failed validation's problems, one line each: the path, ajv's message, and an unexpected property's name. */
function argumentProblems(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map(
    (e) =>
      `${e.instancePath || '(arguments)'} ${e.message ?? 'is invalid'}${e.keyword === 'additionalProperties' ? `: ${(e.params as { additionalProperty: string }).additionalProperty}` : ''}`,
  );
}

/** Checks names and compiles schemas once; throws on a bad tool definition (a programming error). */
export function prepareTools(tools: AgentTool[]): PreparedTools {
  const byName = new Map<string, { tool: AgentTool; validate: ValidateFunction }>();
  for (const tool of tools) {
    if (!TOOL_NAME.test(tool.name)) throw new Error(`tool name "${tool.name}" must match ${TOOL_NAME}`);
    if (byName.has(tool.name)) throw new Error(`tool "${tool.name}" is declared twice`);
    byName.set(tool.name, { tool, validate: validatorFor(tool.parameters) });
  }

  return {
    specs: tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters })),

    async run(call, model, signal, now, timeoutMs) {
      const started = now();
      const reply = (ok: boolean, content: JsonValue, args: JsonValue, error?: string) => ({
        message: {
          role: 'tool' as const,
          tool_call_id: call.id,
          name: call.name,
          content: clip(JSON.stringify(content) ?? 'null'),
          ...(ok ? {} : { is_error: true }),
        },
        record: { model, name: call.name, arguments: args, ok, ...(error ? { error } : {}), ms: now() - started },
      });
      const entry = byName.get(call.name);
      if (!entry)
        return reply(
          false,
          { error: `unknown tool "${call.name}"; available: ${[...byName.keys()].join(', ') || 'none'}` },
          call.arguments,
          'unknown tool',
        );

      let args: unknown;
      try {
        args = call.arguments.trim() === '' ? {} : JSON.parse(call.arguments);
      } catch {
        return reply(false, { error: 'arguments are not valid JSON' }, call.arguments, 'invalid JSON');
      }
      if (!args || typeof args !== 'object' || Array.isArray(args))
        return reply(false, { error: 'arguments must be a JSON object' }, args as JsonValue, 'not an object');
      if (!entry.validate(args)) {
        const problems = argumentProblems(entry.validate);
        return reply(
          false,
          { error: `invalid arguments: ${problems.join('; ')}` },
          args as JsonValue,
          `invalid arguments: ${problems.join('; ')}`,
        );
      }
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(new Error(`timed out after ${timeoutMs} ms`)), timeoutMs);
      const handlerSignal = AbortSignal.any([signal, timeout.signal]);
      try {
        const aborted = new Promise<never>((_, reject) =>
          handlerSignal.addEventListener('abort', () => reject(handlerSignal.reason), { once: true }),
        );
        const result = await Promise.race([entry.tool.handler(args as JsonObject, { signal: handlerSignal }), aborted]);
        return reply(true, result === undefined ? null : result, args as JsonValue);
      } catch (err) {
        if (signal.aborted) throw signal.reason ?? err;
        const text = (err instanceof Error ? err.message : String(err)).slice(0, MAX_ERROR_CHARS);
        return reply(false, { error: `tool failed: ${text}` }, args as JsonValue, text);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function clip(text: string): string {
  return text.length <= MAX_TOOL_RESULT_CHARS ? text : `${text.slice(0, MAX_TOOL_RESULT_CHARS)}…[truncated]`;
}
