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
import type { ChatMessage, ChatUsage, ContentPart, ToolCall } from './chat-model.js';
import type { AgentAttemptEvent, AiService } from './ai-service.js';
import { AgentFailedError } from './agent-failed-error.js';
import { realClock, type Clock } from './clock.js';
import { EmptyOutputError } from './empty-output-error.js';
import { ProviderError } from './provider-error.js';
import { RateLimitError } from './rate-limit-error.js';
import { prepareTools, type AgentTool, type PreparedTools, type ToolCallRecord } from './tool-executor.js';

export type { AgentTool, ToolCallRecord } from './tool-executor.js';

/** Rounds of tool execution per model attempt when AgentRunOptions.maxToolRounds is not given. */
export const DEFAULT_MAX_TOOL_ROUNDS = 5;
/**
 * Wait after a 429 before the contingency model, milliseconds, when AgentRunOptions.rateLimitWaitMs is
 * not given.
 */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 15_000;
/** Total time budget of one run, milliseconds from its start, when AgentRunOptions.deadlineMs is not given. */
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

/** The model chain of one run, each written `provider:model`: tried in the order of the file comment. */
export interface AgentModels {
  /** `provider:model` tried first. */
  primary: string;
  /** Tried in order when the previous one failed. Default none. */
  fallbacks?: string[];
  /** Used after a 429 (see the file comment). Default none. */
  contingency?: string;
}

/**
 * What one runAgent call needs: the AI service, the model chain, the prompt, history and input, the
 * tools, and its time and token limits.
 */
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

/**
 * One model's try within a run: which model, how it ended, how long it took; reported to onAttempt and
 * kept in AgentResult.attempts.
 */
export interface AgentAttempt {
  /** `provider:model`. */
  model: string;
  outcome: 'ok' | 'error' | 'rate_limited' | 'empty';
  /** Wall time of the attempt including its tool calls, milliseconds. */
  ms: number;
  /** Error message when not ok (never request content). */
  error?: string;
}

/**
 * What a successful run resolves: the answer, the model that wrote it, every attempt and tool call,
 * and the tokens used.
 */
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

/**
 * Runs one agent turn: the model order of the file comment, each model's tool loop, the deadline.
 * Resolves the trimmed, non-empty answer with every attempt, tool call and the summed usage.
 * Throws AgentFailedError (`deadline` or `exhausted`, the last error as `cause`) when no model
 * answered, and the abort reason when `signal` aborts.
 */
export async function runAgent(options: AgentRunOptions): Promise<AgentResult> {
  return new AgentRun(options).run();
}

/** The state of one runAgent call: its clock, deadline, attempts, tool calls and usage so far. */
class AgentRun {
  private readonly clock: Clock;
  private readonly signal: AbortSignal;
  private readonly waitMs: number;
  private readonly deadlineMs: number;
  private readonly deadline: number;
  private readonly tools: PreparedTools;
  private readonly attempts: AgentAttempt[] = [];
  private readonly toolCalls: ToolCallRecord[] = [];
  private readonly usage: ChatUsage = { input_tokens: 0, output_tokens: 0 };
  private lastError: unknown;

  constructor(private readonly options: AgentRunOptions) {
    this.clock = options.clock ?? realClock;
    this.signal = options.signal ?? new AbortController().signal;
    this.waitMs = options.rateLimitWaitMs ?? DEFAULT_RATE_LIMIT_WAIT_MS;
    this.deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS;
    this.deadline = this.clock.now() + this.deadlineMs;
    this.tools = prepareTools(options.tools ?? []);
  }

  /** The model order: the chain, then the contingency once or in the rate-limited cycle. */
  async run(): Promise<AgentResult> {
    const chain = await this.walkChain();
    if (chain.text !== undefined) return this.finish(chain.text, chain.model);
    const contingency = this.options.models.contingency;
    if (!contingency) throw this.fail(this.remaining() <= 0 ? 'deadline' : 'exhausted');
    if (!chain.rateLimited) {
      if (this.remaining() <= 0) throw this.fail('deadline');
      const text = await this.attempt(contingency, 'contingency');
      if (text !== undefined) return this.finish(text, contingency);
      if (this.attempts.at(-1)!.outcome !== 'rate_limited') throw this.fail(this.remaining() <= 0 ? 'deadline' : 'exhausted');
    }
    return this.finish(await this.rateLimitedCycle(contingency), contingency);
  }

  /** `primary`, then each fallback; stops at the first answer, or at a 429 when a contingency is set. */
  private async walkChain(): Promise<{ text?: string; model: string; rateLimited: boolean }> {
    const { models } = this.options;
    for (const [index, model] of [models.primary, ...(models.fallbacks ?? [])].entries()) {
      if (this.remaining() <= 0) throw this.fail('deadline');
      const text = await this.attempt(model, index === 0 ? 'primary' : 'fallback');
      if (text !== undefined) return { text, model, rateLimited: false };
      if (this.attempts.at(-1)!.outcome === 'rate_limited' && models.contingency) return { model, rateLimited: true };
    }
    return { model: models.primary, rateLimited: false };
  }

  /** Wait, contingency, repeat while the deadline leaves room for the wait; resolves its answer. */
  private async rateLimitedCycle(contingency: string): Promise<string> {
    for (let cycle = 0; ; cycle++) {
      if (isPermanent(this.lastError) || cycle >= MAX_CONTINGENCY_ATTEMPTS) throw this.fail('exhausted');
      if (this.remaining() <= this.waitMs) throw this.fail('deadline');
      await this.clock.sleep(this.waitMs, this.signal);
      const text = await this.attempt(contingency, 'contingency');
      if (text !== undefined) return text;
    }
  }

  /** One model's full turn (tool loop included). Resolves the answer or records the failure and resolves undefined. */
  private async attempt(model: string, role: AgentAttemptEvent['role']): Promise<string | undefined> {
    const started = this.clock.now();
    try {
      const text = await this.turn(model);
      this.record({ model, outcome: 'ok', ms: this.clock.now() - started }, role);
      return text;
    } catch (err) {
      if (this.signal.aborted) throw this.signal.reason ?? err;
      this.lastError = err;
      const outcome = err instanceof RateLimitError ? 'rate_limited' : err instanceof EmptyOutputError ? 'empty' : 'error';
      const error = err instanceof Error ? err.message : String(err);
      this.record({ model, outcome, ms: this.clock.now() - started, error }, role);
      return undefined;
    }
  }

  /** Keeps an attempt, tells `onAttempt`, and reports it to the AI service's metrics (never failing the run). */
  private record(done: AgentAttempt, role: AgentAttemptEvent['role']): void {
    this.attempts.push(done);
    this.options.onAttempt?.(done);
    try {
      this.options.ai.reportAttempt?.({ model: done.model, role, outcome: done.outcome, ms: done.ms });
    } catch {
      // ignored
    }
  }

  /** The calls of one model: up to maxToolRounds rounds of tools, then text. Throws on a failure or an empty answer. */
  private async turn(model: string): Promise<string> {
    const { options } = this;
    const messages: ChatMessage[] = [...(options.history ?? []), { role: 'user', content: options.input }];
    const offerTools = this.tools.specs.length > 0;
    const maxRounds = options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS;
    for (let round = 0; ; round++) {
      const left = this.remaining();
      if (left <= 0) throw new ProviderError(model, 'run deadline reached', undefined, 'deadline');
      const lastRound = round >= maxRounds;
      const result = await options.ai.chat(model, {
        system: options.system,
        messages,
        ...(offerTools ? { tools: this.tools.specs, tool_choice: lastRound ? ('none' as const) : ('auto' as const) } : {}),
        max_tokens: options.maxTokens ?? DEFAULT_AGENT_MAX_TOKENS,
        signal: this.signal,
        timeout_ms: Math.max(1, Math.min(left, options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS)),
      });
      this.usage.input_tokens += result.usage.input_tokens;
      this.usage.output_tokens += result.usage.output_tokens;
      if (offerTools && !lastRound && result.tool_calls.length > 0) {
        messages.push({ role: 'assistant', content: result.text, tool_calls: result.tool_calls });
        await this.runToolCalls(model, result.tool_calls, messages);
        continue;
      }
      // Tool calls past the last round (or when no tools were offered) are ignored: only text counts.
      const text = result.text.trim();
      if (!text) throw new EmptyOutputError(model);
      return text;
    }
  }

  /** Runs the model's tool calls in order, each bounded by the tool timeout and the deadline; appends their results. */
  private async runToolCalls(model: string, calls: ToolCall[], messages: ChatMessage[]): Promise<void> {
    for (const call of calls) {
      const timeoutMs = Math.max(1, Math.min(this.remaining(), this.options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS));
      const { message, record } = await this.tools.run(call, model, this.signal, () => this.clock.now(), timeoutMs);
      messages.push(message);
      this.toolCalls.push(record);
    }
  }

  private remaining(): number {
    return this.deadline - this.clock.now();
  }

  private finish(text: string, model: string): AgentResult {
    return { text, model_used: model, attempts: this.attempts, tool_calls: this.toolCalls, usage: this.usage };
  }

  private fail(code: 'deadline' | 'exhausted'): AgentFailedError {
    return new AgentFailedError(code, this.attempts, { cause: this.lastError, deadlineMs: this.deadlineMs });
  }
}

function isPermanent(err: unknown): boolean {
  if (err instanceof ProviderError) return err.code === 'config' || (err.status !== undefined && PERMANENT_STATUS.has(err.status));
  return !(err instanceof RateLimitError || err instanceof EmptyOutputError);
}
