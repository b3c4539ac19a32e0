import { describe, expect, it } from 'vitest';
import { MODEL_DEFAULTS, readModelConfig } from '../../adapters/ai/model-config.js';
import { ModelRefError } from '../../adapters/ai/model-ref-error.js';
import { parseModelRef } from '../../adapters/ai/model-ref.js';

describe('parseModelRef', () => {
  it('splits provider and model at the first colon', () => {
    expect(parseModelRef('openai:gpt-4.1-mini')).toEqual({ provider: 'openai', model: 'gpt-4.1-mini' });
    expect(parseModelRef(' Anthropic:claude-sonnet-4-6 ')).toEqual({ provider: 'anthropic', model: 'claude-sonnet-4-6' });
    expect(parseModelRef('openai:meta/llama-3:8b')).toEqual({ provider: 'openai', model: 'meta/llama-3:8b' });
  });

  it.each([
    ['', /empty/],
    ['gpt-4.1-mini', /no provider.*"openai:gpt-4.1-mini"/],
    ['google:gemini', /unknown provider "google"/],
    ['openai:', /model id "" is empty/],
    ['openai:gpt 4', /characters outside/],
  ])('rejects %j with a clear ModelRefError', (text, message) => {
    expect(() => parseModelRef(text)).toThrow(ModelRefError);
    expect(() => parseModelRef(text)).toThrow(message);
  });
});

describe('readModelConfig', () => {
  it('uses defaults for unset or blank variables, with the roles the contract asks for', () => {
    const config = readModelConfig({ LEADFLOW_MODEL_PRIMARY: '  ' });
    expect(config).toEqual(MODEL_DEFAULTS);
    expect(parseModelRef(config.primary).provider).toBe('openai');
    expect(parseModelRef(config.fallback).provider).toBe('anthropic');
    expect(parseModelRef(config.contingency).provider).toBe('openai');
    expect(config.contingency).not.toBe(config.primary);
    expect(parseModelRef(config.handoff).provider).toBe('anthropic');
    for (const role of ['transcribe', 'vision', 'document'] as const) expect(parseModelRef(config[role]).provider).toBe('openai');
    expect(config.rateLimitWaitMs).toBe(15000);
  });

  it('reads every variable', () => {
    const config = readModelConfig({
      LEADFLOW_MODEL_PRIMARY: 'anthropic:a',
      LEADFLOW_MODEL_FALLBACK: 'openai:b',
      LEADFLOW_MODEL_CONTINGENCY: 'anthropic:c',
      LEADFLOW_MODEL_HANDOFF: 'openai:d',
      LEADFLOW_MODEL_SUMMARY: 'openai:e',
      LEADFLOW_MODEL_TRANSCRIBE: 'openai:f',
      LEADFLOW_MODEL_VISION: 'anthropic:g',
      LEADFLOW_MODEL_DOCUMENT: 'anthropic:h',
      LEADFLOW_RATE_LIMIT_WAIT_MS: '250',
    });
    expect(config).toEqual({
      primary: 'anthropic:a',
      fallback: 'openai:b',
      contingency: 'anthropic:c',
      handoff: 'openai:d',
      summary: 'openai:e',
      transcribe: 'openai:f',
      vision: 'anthropic:g',
      document: 'anthropic:h',
      rateLimitWaitMs: 250,
    });
  });

  it('names the variable of a malformed value', () => {
    expect(() => readModelConfig({ LEADFLOW_MODEL_FALLBACK: 'claude' })).toThrow(/^LEADFLOW_MODEL_FALLBACK: .*no provider/);
    expect(() => readModelConfig({ LEADFLOW_MODEL_TRANSCRIBE: 'anthropic:x' })).toThrow(
      /LEADFLOW_MODEL_TRANSCRIBE: transcription needs an openai/,
    );
    expect(() => readModelConfig({ LEADFLOW_RATE_LIMIT_WAIT_MS: '15s' })).toThrow(/LEADFLOW_RATE_LIMIT_WAIT_MS/);
  });
});
