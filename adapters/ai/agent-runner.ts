// The agent: one turn of a conversation with a model chain, memory and a bounded tool loop.
//
// Model order (original spec §4.1, §7):
//   1. `primary`, then each of `fallbacks`, in order; an error or an empty answer moves to the next.
//   2. A 429 from any model (when `contingency` is set) ends that walk: wait `rateLimitWaitMs`, then
//      try `contingency`; when it fails again (429, 5xx, timeout, empty) wait and try it again —
//      the original's repeating cycle — for as long as the total `deadlineMs` leaves room for the
//      wait (and at most MAX_CONTINGENCY_ATTEMPTS times). A permanent error (HTTP 400/401/403/404/
//      422, missing key) ends the cycle at once.
//   3. When every chain model failed without a 429, `contingency` is tried once more, without waiting.
// An empty final answer is never returned: it counts as a failure. Without `contingency`, a 429 is
// an ordinary failure and the walk goes on to the next model.
import type { ContentPart, ChatMessage, ChatUsage } from './chat-model.js';
import type { AgentAttemptEvent, AiService } from './ai-service.js';
import { AgentFailedError } from './agent-failed-error.js';
import { realClock, type Clock } from './clock.js';
import { EmptyOutputError } from './empty-output-error.js';
import { ProviderError } from './provider-error.js';
import { RateLimitError } from './rate-limit-error.js';
import { prepareTools, type AgentTool, type PreparedTools, type ToolCallRecord } from './tool-executor.js';

export type { AgentTool, ToolCallRecord } from './tool-executor.js';

export const DEFAULT_MAX_TOOL_ROUNDS = 5;
export const DEFAULT_RATE_LIMIT_WAIT_MS = 15_000;
export const DEFAULT_DEADLINE_MS = 120_000;
/** Upper bound of one provider request inside a run, milliseconds (also bounded by the deadline). */
export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
/** Upper bound of one tool handler, milliseconds (also bounded by the deadline). */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;
/**
 * Output tokens per call when not given. Reasoning models (e.g. the gpt-5 family) spend part of
 * this on reasoning; too small a budget comes back empty.
 */
export const DEFAULT_AGENT_MAX_TOKENS = 2048;
/** Safety net on the rate-limited cycle besides the deadline (matters when the wait is 0). */
export const MAX_CONTINGENCY_ATTEMPTS = 20;

export interface AgentModels {
  /** `provider:model` tried first. */
  primary: string;
  /** Tried in order when the previous one failed. Default none. */
  fallbacks?: string[];
  /** Used after a 429 (see the file comment). Default none. */
  contingency?: string;
}

export interface AgentRunOptions {
  ai: Pick<AiService, 'chat' | 'reportAttempt'>;
  models: AgentModels;
  /** System prompt. Not a secret store: assume it leaks (no credentials or rules enforced only here). */
  system?: string;
  /** Earlier turns, oldest first. */
  history?: ChatMessage[];
  /** This turn's input from the lead; media-derived text belongs here as quoted data, not in `system`. */
  input: string | ContentPart[];
  tools?: AgentTool[];
  /** Rounds of tool execution per model attempt. After the last one the model is asked (tool_choice none) for text. Default 5. */
  maxToolRounds?: number;
  /** Output token budget of each call. Default 2048 (DEFAULT_AGENT_MAX_TOKENS). */
  maxTokens?: number;
  /** Milliseconds to wait after a 429 before the contingency model. Default 15000. */
  rateLimitWaitMs?: number;
  /** Total time budget of the run, milliseconds, from its start. Default 120000. */
  deadlineMs?: number;
  /** Upper bound of one provider request, milliseconds. Default 60000. */
  callTimeoutMs?: number;
  /** Upper bound of one tool handler, milliseconds; a slower one is reported to the model as timed out. Default 30000. */
  toolTimeoutMs?: number;
  clock?: Clock;
  signal?: AbortSignal;
  /** Called after every model attempt (for logs and metrics); must not throw. */
  onAttempt?: (attempt: AgentAttempt) => void;
}

export interface AgentAttempt {
  /** `provider:model`. */
  model: string;
  outcome: 'ok' | 'error' | 'rate_limited' | 'empty';
  /** Wall time of the attempt including its tool calls, milliseconds. */
  ms: number;
  /** Error message when not ok (never request content). */
  error?: string;
}

export interface AgentResult {
  /** Final answer, trimmed, never empty. */
  text: string;
  /** `provider:model` that answered. */
  model_used: string;
  attempts: AgentAttempt[];
  /** Every tool call executed in this run, across attempts, in order. */
  tool_calls: ToolCallRecord[];
  /** Tokens summed over every call of the run. */
  usage: ChatUsage;
}

/** Statuses that will not change by retrying the same model. */
const PERMANENT_STATUS = new Set([400, 401, 403, 404, 422]);

export async function runAgent(options: AgentRunOptions): Promise<AgentResult> {
  const clock = options.clock ?? realClock;
  const signal = options.signal ?? new AbortController().signal;
  const waitMs = options.rateLimitWaitMs ?? DEFAULT_RATE_LIMIT_WAIT_MS;
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
  const deadline = clock.now() + deadlineMs;
  const maxRounds = options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS;
  const callTimeout = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const tools = prepareTools(options.tools ?? []);
  const attempts: AgentAttempt[] = [];
  const toolCalls: ToolCallRecord[] = [];
  const usage: ChatUsage = { input_tokens: 0, output_tokens: 0 };
  let lastError: unknown;

  const remaining = () => deadline - clock.now();
  /** Metrics of one attempt (the AI service's onAgentAttempt); a failing reporter never fails the run. */
  const report = (event: AgentAttemptEvent) => {
    try {
      options.ai.reportAttempt?.(event);
    } catch {
      // ignored
    }
  };

  /** One model's full turn (tool loop included). Resolves the answer or records the failure and resolves undefined. */
  async function attempt(model: string, role: AgentAttemptEvent['role']): Promise<string | undefined> {
    const started = clock.now();
    try {
      const text = await turn(model, tools);
      const done: AgentAttempt = { model, outcome: 'ok', ms: clock.now() - started };
      attempts.push(done);
      options.onAttempt?.(done);
      report({ model, role, outcome: done.outcome, ms: done.ms });
      return text;
    } catch (err) {
      if (signal.aborted) throw signal.reason ?? err;
      lastError = err;
      const outcome = err instanceof RateLimitError ? 'rate_limited' : err instanceof EmptyOutputError ? 'empty' : 'error';
      const failed: AgentAttempt = { model, outcome, ms: clock.now() - started, error: err instanceof Error ? err.message : String(err) };
      attempts.push(failed);
      options.onAttempt?.(failed);
      report({ model, role, outcome, ms: failed.ms });
      return undefined;
    }
  }

  async function turn(model: string, prepared: PreparedTools): Promise<string> {
    const messages: ChatMessage[] = [...(options.history ?? []), { role: 'user', content: options.input }];
    const offerTools = prepared.specs.length > 0;
    for (let round = 0; ; round++) {
      const left = remaining();
      if (left <= 0) throw new ProviderError(model, 'run deadline reached', undefined, 'deadline');
      const lastRound = round >= maxRounds;
      const result = await options.ai.chat(model, {
        system: options.system,
        messages,
        ...(offerTools ? { tools: prepared.specs, tool_choice: lastRound ? ('none' as const) : ('auto' as const) } : {}),
        max_tokens: options.maxTokens ?? DEFAULT_AGENT_MAX_TOKENS,
        signal,
        timeout_ms: Math.max(1, Math.min(left, callTimeout)),
      });
      usage.input_tokens += result.usage.input_tokens;
      usage.output_tokens += result.usage.output_tokens;
      if (offerTools && !lastRound && result.tool_calls.length > 0) {
        messages.push({ role: 'assistant', content: result.text, tool_calls: result.tool_calls });
        for (const call of result.tool_calls) {
          const { message, record } = await prepared.run(
            call,
            model,
            signal,
            () => clock.now(),
            Math.max(1, Math.min(remaining(), options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS)),
          );
          messages.push(message);
          toolCalls.push(record);
        }
        continue;
      }
      // Tool calls past the last round (or when no tools were offered) are ignored: only text counts.
      const text = result.text.trim();
      if (!text) throw new EmptyOutputError(model);
      return text;
    }
  }

  const finish = (text: string, model: string): AgentResult => ({ text, model_used: model, attempts, tool_calls: toolCalls, usage });
  const fail = (code: 'deadline' | 'exhausted') => new AgentFailedError(code, attempts, { cause: lastError, deadlineMs });

  let rateLimited = false;
  for (const [index, model] of [options.models.primary, ...(options.models.fallbacks ?? [])].entries()) {
    if (remaining() <= 0) throw fail('deadline');
    const text = await attempt(model, index === 0 ? 'primary' : 'fallback');
    if (text !== undefined) return finish(text, model);
    if (attempts.at(-1)!.outcome === 'rate_limited' && options.models.contingency) {
      rateLimited = true;
      break;
    }
  }

  const contingency = options.models.contingency;
  if (!contingency) throw fail(remaining() <= 0 ? 'deadline' : 'exhausted');
  if (!rateLimited) {
    if (remaining() <= 0) throw fail('deadline');
    const text = await attempt(contingency, 'contingency');
    if (text !== undefined) return finish(text, contingency);
    if (attempts.at(-1)!.outcome !== 'rate_limited') throw fail(remaining() <= 0 ? 'deadline' : 'exhausted');
  }

  // Rate-limited cycle: wait, contingency, repeat while the deadline leaves room for the wait.
  for (let cycle = 0; ; cycle++) {
    if (isPermanent(lastError) || cycle >= MAX_CONTINGENCY_ATTEMPTS) throw fail('exhausted');
    if (remaining() <= waitMs) throw fail('deadline');
    await clock.sleep(waitMs, signal);
    const text = await attempt(contingency, 'contingency');
    if (text !== undefined) return finish(text, contingency);
  }
}

function isPermanent(err: unknown): boolean {
  if (err instanceof ProviderError) return err.code === 'config' || (err.status !== undefined && PERMANENT_STATUS.has(err.status));
  return !(err instanceof RateLimitError || err instanceof EmptyOutputError);
}
