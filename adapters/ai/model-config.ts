// Which model does what, read from the environment (CONTRACT §2). Flows may pass other models
// explicitly; these are the defaults the nodes and the agent fall back to.
import { parseModelRef } from './model-ref.js';

/**
 * Which `provider:model` does each job, and the wait after a 429 (ms); read by readModelConfig,
 * defaults MODEL_DEFAULTS.
 */
export interface ModelConfig {
  /** Agent's first choice. */
  primary: string;
  /** Tried when the primary fails (not on 429): another provider. */
  fallback: string;
  /** Used after a 429, after waiting `rateLimitWaitMs`: a newer model of the primary's provider. */
  contingency: string;
  /** Writes the high-budget handoff message; a provider other than the primary's. */
  handoff: string;
  /** Writes the ≤ 50-word handoff summary. */
  summary: string;
  /** Speech to text; must be an `openai:` model (`/audio/transcriptions`). */
  transcribe: string;
  /** Describes images and video frames. */
  vision: string;
  /** Extracts text from PDF documents. */
  document: string;
  /** Wait after a 429 before the contingency model, milliseconds. */
  rateLimitWaitMs: number;
}

/**
 * Defaults when the variable is unset. Non-reasoning chat models for the short, latency-sensitive
 * calls (a reasoning model can spend a small token budget on reasoning and return nothing);
 * the contingency is the primary provider's newer generation.
 */
export const MODEL_DEFAULTS: Readonly<ModelConfig> = Object.freeze({
  primary: 'openai:gpt-4.1-mini',
  fallback: 'anthropic:claude-sonnet-4-6',
  contingency: 'openai:gpt-5.4-mini',
  handoff: 'anthropic:claude-sonnet-4-6',
  summary: 'openai:gpt-4.1-mini',
  transcribe: 'openai:gpt-4o-mini-transcribe',
  vision: 'openai:gpt-4.1-mini',
  document: 'openai:gpt-4.1-mini',
  rateLimitWaitMs: 15_000,
});

/** Environment variable of each model role. */
export const MODEL_ENV: Readonly<Record<Exclude<keyof ModelConfig, 'rateLimitWaitMs'>, string>> = Object.freeze({
  primary: 'LEADFLOW_MODEL_PRIMARY',
  fallback: 'LEADFLOW_MODEL_FALLBACK',
  contingency: 'LEADFLOW_MODEL_CONTINGENCY',
  handoff: 'LEADFLOW_MODEL_HANDOFF',
  summary: 'LEADFLOW_MODEL_SUMMARY',
  transcribe: 'LEADFLOW_MODEL_TRANSCRIBE',
  vision: 'LEADFLOW_MODEL_VISION',
  document: 'LEADFLOW_MODEL_DOCUMENT',
});

/**
 * Reads the model roles and `LEADFLOW_RATE_LIMIT_WAIT_MS` from `env`, defaults for unset or blank
 * values. Throws (ModelRefError / Error) naming the variable when a value is malformed, so a bad
 * configuration fails at start rather than at the first lead.
 */
export function readModelConfig(env: Record<string, string | undefined>): ModelConfig {
  const out = { ...MODEL_DEFAULTS };
  for (const [role, name] of Object.entries(MODEL_ENV) as Array<[keyof typeof MODEL_ENV, string]>) {
    const value = env[name]?.trim();
    if (!value) continue;
    try {
      parseModelRef(value);
    } catch (err) {
      throw Object.assign(err as Error, { message: `${name}: ${(err as Error).message}` });
    }
    out[role] = value;
  }
  if (parseModelRef(out.transcribe).provider !== 'openai')
    throw new Error(
      `${MODEL_ENV.transcribe}: transcription needs an openai: model (only /audio/transcriptions transcribes), got "${out.transcribe}"`,
    );
  const wait = env.LEADFLOW_RATE_LIMIT_WAIT_MS?.trim();
  if (wait) {
    const ms = Number(wait);
    if (!Number.isInteger(ms) || ms < 0 || ms > 600_000)
      throw new Error(`LEADFLOW_RATE_LIMIT_WAIT_MS: expected whole milliseconds between 0 and 600000, got "${wait}"`);
    out.rateLimitWaitMs = ms;
  }
  return out;
}

/**
 * `env` with each model role's variable (MODEL_ENV) set to its MODEL_DEFAULTS value where it is unset
 * or blank; every other variable as it is (a copy: later changes to `env` are not seen). The
 * environment every host that runs flows hands its engine (serve, worker, run, replay, leadflow
 * test), so a flow that declares `LEADFLOW_MODEL_*: null` under `env:` reads the same default model
 * as the AI service:
 * MODEL_DEFAULTS is the one declaration of the default models. Never throws; `env` is not changed.
 */
export function withModelDefaults(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = { ...env };
  for (const [role, name] of Object.entries(MODEL_ENV) as Array<[keyof typeof MODEL_ENV, string]>) {
    if (!out[name]?.trim()) out[name] = MODEL_DEFAULTS[role];
  }
  return out;
}
