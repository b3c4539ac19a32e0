// A YAML file that can answer "where is this path?" with 1-based line and column.
//
// Its data comes from js-yaml when the text lies within the subset where js-yaml reads exactly what
// the `yaml` library reads (core-yaml.ts); otherwise, and for every position, from `yaml`, which is
// loaded (and the text parsed with positions) only when first needed: a valid flow never pays for it.
import { createRequire } from 'node:module';
import type { Document, LineCounter, Node, Pair } from 'yaml';
import type { LoadProblem, LoadProblemCode } from '../types.js';
import { readCoreYaml } from './core-yaml.js';

/** JSON path of a value inside a YAML file: mapping keys and 0-based sequence indexes. */
export type Path = Array<string | number>;

type YamlLibrary = typeof import('yaml');
let yamlLibrary: YamlLibrary | undefined;

/** The `yaml` library, required on first use (CommonJS: synchronously, from node_modules). */
function yaml(): YamlLibrary {
  yamlLibrary ??= createRequire(import.meta.url)('yaml') as YamlLibrary;
  return yamlLibrary;
}

/**
 * One YAML text (duplicate keys are errors) that positions problems: `problem(path, …)` gives the
 * 1-based line and column of the value at `path`, or of its deepest existing ancestor.
 */
export class YamlSource {
  /** The data read by js-yaml, when the text is within its subset (core-yaml.ts). */
  private readonly core: { value: unknown } | undefined;
  /** Whether toJS() gave the js-yaml data already (later calls read the text again: a new copy each). */
  private coreGiven = false;
  private parsed?: { doc: Document; lines: LineCounter };

  constructor(
    readonly file: string,
    readonly text: string,
  ) {
    this.core = readCoreYaml(text);
  }

  /** The text parsed by `yaml`, with positions: on first use. */
  private document(): { doc: Document; lines: LineCounter } {
    if (!this.parsed) {
      const { LineCounter: Lines, parseDocument } = yaml();
      const lines = new Lines();
      this.parsed = { doc: parseDocument(this.text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true }), lines };
    }
    return this.parsed;
  }

  /** YAML syntax problems (errors only; warnings such as unknown tags are errors too, as nothing else uses tags). */
  syntaxProblems(): LoadProblem[] {
    if (this.core) return [];
    const { doc, lines } = this.document();
    const problems: LoadProblem[] = [...doc.errors, ...doc.warnings].map((e) => {
      const pos = lines.linePos(e.pos[0]);
      const message = e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?\s*$/, '');
      return { file: this.file, line: pos.line, col: pos.col, path: [], code: 'yaml-syntax' as const, message };
    });
    // An alias without its anchor parses fine and only throws in toJS(): report it here, positioned.
    yaml().visit(doc, {
      Alias: (_key, node) => {
        if (node.resolve(doc)) return;
        const pos = lines.linePos(node.range?.[0] ?? 0);
        problems.push({
          file: this.file,
          line: pos.line,
          col: pos.col,
          path: [],
          code: 'yaml-syntax',
          message: `alias *${node.source} has no anchor &${node.source} before it`,
        });
      },
    });
    return problems;
  }

  /** The data of the text (a new copy per call). Throws on an alias bomb (more than 100 alias expansions). */
  toJS(): unknown {
    if (this.core) {
      const { value } = this.core;
      if (this.coreGiven) return readCoreYaml(this.text)!.value;
      this.coreGiven = true;
      return value;
    }
    return this.document().doc.toJS({ maxAliasCount: 100 });
  }

  /** Offset of the value at `path` (or of its key, with `atKey`); falls back to the deepest existing ancestor. */
  private locate(path: Path, atKey: boolean): { offset: number; node: Node | null } {
    const { isMap, isPair, isScalar, isSeq } = yaml();
    let node: unknown = this.document().doc.contents;
    let pair: Pair | null = null;
    let offset = (node as Node | null)?.range?.[0] ?? 0;
    for (const segment of path) {
      let next: unknown;
      pair = null;
      if (isMap(node)) {
        const found = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment));
        if (found) {
          pair = found as Pair;
          next = found.value;
        }
      } else if (isSeq(node) && typeof segment === 'number') {
        next = node.items[segment];
      }
      if (next === undefined || next === null) {
        if (pair && isScalar(pair.key) && pair.key.range) offset = pair.key.range[0];
        return { offset, node: null };
      }
      node = next;
      offset = (node as Node).range?.[0] ?? offset;
    }
    if (atKey && pair && isScalar(pair.key) && pair.key.range) return { offset: pair.key.range[0], node: node as Node };
    return { offset, node: node as Node };
  }

  /** Position of a path; `charOffset` moves inside a single-line scalar (for expression errors). */
  position(path: Path, opts: { atKey?: boolean; charOffset?: number } = {}): { line: number; col: number } {
    const { offset, node } = this.locate(path, opts.atKey ?? false);
    const { isScalar } = yaml();
    let at = offset;
    if (opts.charOffset !== undefined && node && isScalar(node)) {
      if (node.type === 'PLAIN') at += opts.charOffset;
      else if (node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE')
        at += 1 + rawLength(this.text.slice(offset + 1), opts.charOffset, node.type);
    }
    return this.document().lines.linePos(at);
  }

  problem(path: Path, code: LoadProblemCode, message: string, opts: { atKey?: boolean; charOffset?: number } = {}): LoadProblem {
    const { line, col } = this.position(path, opts);
    return { file: this.file, line, col, path, code, message };
  }
}

/** Source characters taken by the first `chars` characters of a quoted scalar's value (escapes are longer). */
function rawLength(raw: string, chars: number, type: 'QUOTE_DOUBLE' | 'QUOTE_SINGLE'): number {
  let i = 0;
  for (let n = 0; n < chars && i < raw.length; n++) {
    if (type === 'QUOTE_SINGLE') i += raw.startsWith("''", i) ? 2 : 1;
    else if (raw[i] === '\\') i += ({ x: 4, u: 6, U: 10 } as Record<string, number>)[raw[i + 1] ?? ''] ?? 2;
    else i += 1;
  }
  return i;
}

/** A problem as `leadflow validate` prints it: `FILE:LINE:COL message [code]`. */
export function formatProblem(p: LoadProblem): string {
  return `${p.file}:${p.line}:${p.col} ${p.message} [${p.code}]`;
}
