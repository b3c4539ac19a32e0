// Erasing one person's data from execution records (data protection: the agent flow's `excluir`).
// The engine knows no phones or names: an Erasure is plain data made by whoever knows them
// (adapters/phones/erasure.ts), and the stores and the erasing decorator apply it with the helpers
// below.
//
// A record is the person's when its payload (trigger, vars, steps, outbound calls, response, output,
// error, stop reason) contains one of the `needles` as plain text. In such a record, every string,
// number and object key goes through the `replace` rules in order (e.g. each phone variant, digits
// possibly separated by spaces or punctuation, becomes a masked form; the name becomes a marker),
// and the values under `text_keys` (message texts) become `text_mask`. Records that are not the
// person's are never changed.
import type { ExecutionRecord, ExecutionStatus, JsonValue } from '../types.js';

/** One text replacement applied to the person's records. The pattern must compile: CompiledErasure throws otherwise. */
export interface ReplaceRule {
  /** JavaScript regular expression source, e.g. `5\D{0,3}5\D{0,3}1…`. */
  pattern: string;
  /** Its flags; `g` is always added. */
  flags?: string;
  /** What each match becomes (a literal text, `$` has no special meaning). */
  with: string;
}

/** What to erase from the records of one person. Plain JSON; it holds the person's data (the needles): never log or store it. */
export interface Erasure {
  /** Texts (e.g. every digit form of a phone) that mark a record as the person's; empty ones are ignored. */
  needles: string[];
  /** Applied in order to every string, number and object key of the person's records. */
  replace: ReplaceRule[];
  /** Members whose values are the person's message texts: every string in them becomes `text_mask`. */
  text_keys?: string[];
  /** Default `[texto apagado]`. */
  text_mask?: string;
}

/** What the person's message texts become when the Erasure names no `text_mask`. */
export const DEFAULT_TEXT_MASK = '[texto apagado]';

/** The parts of a record that hold payloads (what is searched and rewritten). */
export const PAYLOAD_PARTS = [
  'trigger',
  'vars',
  'steps',
  'outbound',
  'response',
  'output',
  'error',
  'stop_reason',
  'started_flows',
  'cancelled_flows',
  'concurrency_key',
] as const;
/** One of PAYLOAD_PARTS. */
export type PayloadPart = (typeof PAYLOAD_PARTS)[number];

/** What a store tells about a record when asking whether to spare it. */
export interface RecordSummary {
  id: string;
  status: ExecutionStatus;
  parent_id?: string;
}

/** What erasing payloads did: ids of the records rewritten and of those spared. */
export interface PayloadEraseResult {
  /** Records rewritten. */
  erased: string[];
  /** The person's records left as they were because `spare` said so. */
  spared: string[];
}

/**
 * One entry of the erasure ledger (engine/store/erasing-store.ts): an erasure whose executions
 * have not all ended yet, shared by every process on the store. It holds the person's data (the
 * Erasure): kept only while some of `execution_ids` is running or waiting, until `expires_at` at
 * the latest; never log it.
 */
export interface ErasureEntry {
  id: string;
  erasure: Erasure;
  /** The erasing execution: what it and its children (at any depth) write is scrubbed whatever it holds. */
  eraser_id: string;
  /** The eraser and the person's executions spared because they were running or waiting. */
  execution_ids: string[];
  /** Ms since the epoch. */
  created_at: number;
  /** Ms since the epoch; from then on the entry is ignored and pruned. */
  expires_at: number;
}

/** A store that can rewrite its stored records (both execution stores implement it). */
export interface PayloadEraser {
  /**
   * Rewrites every stored record that is the person's (see `scrubRecord`), except those `spare`
   * returns true for (e.g. executions still running or waiting elsewhere, which need their data to
   * go on). Returns the ids of both.
   */
  erasePayloads(erasure: Erasure, spare?: (record: RecordSummary) => boolean): Promise<PayloadEraseResult>;

  // The erasure ledger, shared by every process on the store (engine/store/erasing-store.ts).

  /** Stores a new ledger entry. */
  recordErasure(entry: ErasureEntry): Promise<void>;
  /** Entries that have not expired at `now` (ms), oldest first. */
  liveErasures(now: number): Promise<ErasureEntry[]>;
  /** Deletes an entry; false when it was not there (e.g. another process deleted it first). */
  dropErasure(id: string): Promise<boolean>;
  /** Deletes the entries expired at `now` (ms); returns how many. */
  pruneErasures(now: number): Promise<number>;
}

/** An Erasure made ready to apply. */
export class CompiledErasure {
  readonly needles: string[];
  private readonly rules: Array<{ re: RegExp; with: string }>;
  private readonly textKeys: Set<string>;
  private readonly textMask: string;

  constructor(readonly erasure: Erasure) {
    this.needles = [...new Set(erasure.needles.filter((n) => typeof n === 'string' && n !== ''))];
    this.rules = erasure.replace.map((r) => ({ re: new RegExp(r.pattern, `${(r.flags ?? '').replace(/g/g, '')}g`), with: r.with }));
    this.textKeys = new Set(erasure.text_keys ?? []);
    this.textMask = erasure.text_mask ?? DEFAULT_TEXT_MASK;
  }

  /** True when `text` holds a needle. */
  hits(text: string): boolean {
    return this.needles.some((n) => text.includes(n));
  }

  /** True when any payload part of the record holds a needle. */
  matches(record: Partial<Pick<ExecutionRecord, PayloadPart>>): boolean {
    if (this.needles.length === 0) return false;
    return PAYLOAD_PARTS.some(
      (part) => record[part] !== undefined && this.hits(typeof record[part] === 'string' ? record[part] : JSON.stringify(record[part])),
    );
  }

  /** `text` with every replace rule applied. */
  replaceText(text: string): string {
    let out = text;
    for (const rule of this.rules) out = out.replace(rule.re, () => rule.with);
    return out;
  }

  /** A scrubbed copy of a JSON value (the input is not changed). */
  scrub(value: JsonValue): JsonValue {
    if (typeof value === 'string') return this.replaceText(value);
    if (typeof value === 'number') {
      const text = String(value);
      const replaced = this.replaceText(text);
      return replaced === text ? value : replaced;
    }
    if (Array.isArray(value)) return value.map((v) => this.scrub(v));
    if (value && typeof value === 'object') {
      const out: Record<string, JsonValue> = {};
      for (const [k, v] of Object.entries(value)) {
        const scrubbed = this.textKeys.has(k) ? this.maskTexts(v) : this.scrub(v);
        setOwn(out, this.replaceText(k), scrubbed);
      }
      return out;
    }
    return value;
  }

  /**
   * The value of a message-text member: a string becomes the mask (an empty one stays empty), a
   * list keeps its shape (strings masked, objects scrubbed member by member, so a list of chat
   * messages keeps its roles), an object has every string in it masked.
   */
  private maskTexts(value: JsonValue, deep = false): JsonValue {
    if (typeof value === 'string') return value === '' ? value : this.textMask;
    if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' || deep ? this.maskTexts(v, deep) : this.scrub(v)));
    if (value && typeof value === 'object') {
      const out: Record<string, JsonValue> = {};
      for (const [k, v] of Object.entries(value)) setOwn(out, this.replaceText(k), this.maskTexts(v, true));
      return out;
    }
    return this.scrub(value);
  }

  /**
   * A copy of the record with its payload parts scrubbed, or the record itself when it is not the
   * person's (`force`: scrub anyway, e.g. a record written by the execution that erased the person).
   * Ids, flow, status and timestamps are never changed.
   */
  scrubRecord(record: ExecutionRecord, force = false): ExecutionRecord {
    if (!force && !this.matches(record)) return record;
    const out: ExecutionRecord = { ...record };
    const parts = out as unknown as Record<PayloadPart, JsonValue | undefined>;
    for (const part of PAYLOAD_PARTS) {
      const value = parts[part];
      if (value !== undefined) parts[part] = this.scrub(value);
    }
    return out;
  }
}

function setOwn(target: Record<string, JsonValue>, key: string, value: JsonValue): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
