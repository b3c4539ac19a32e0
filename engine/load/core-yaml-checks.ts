// What keeps a text outside core-yaml's subset (core-yaml.ts), where js-yaml reads a text that the
// `yaml` library, and the YAML spec, read otherwise or reject: checks of the whole text before
// js-yaml reads it, and of each node js-yaml reads (through its listener). Each check is drawn on
// the safe side: a text it declines that is in fact fine is only read more slowly, by `yaml`.
import type { State } from 'js-yaml';

/** A directive (`%YAML 1.2`, `%TAG ! tag:x,2026:`): `yaml` warns on the ones it does not know. */
const DIRECTIVE = /^%/m;
/** A line starting with `---` or `...` that holds more than the marker and a comment (`--- a: 1`, `---word`). */
const MARKER_WITH_CONTENT = /^(?:---|\.\.\.)(?![ \t]*$|[ \t]+#.*$)/m;
/** A `#` right after a closing quote, a flow indicator or a `:` (a comment must follow a blank). */
const GLUED_COMMENT = /[\]}"',[{:]#/;
/** A carriage return alone: js-yaml takes it as a line break, `yaml` does not. */
const LONE_CR = /\r(?!\n)/;
/** What YAML 1.1 took for line breaks, and JavaScript's `^` and `$` still do (the checks here read lines with them). */
const OLD_LINE_BREAK = /[\u0085\u2028\u2029]/;
/** A character that may begin a tag, an anchor, an alias or an explicit key (`? `). */
const PROPERTY_OR_KEY_INDICATOR = /[!&*?]/g;
/** What may come before a node's first character, on its line (blanks aside). */
const BEFORE_NODE = '-:?[{,\n\r';

/** Whether a check of the whole text puts it outside the subset (before js-yaml reads it). */
export function outsideByText(text: string): boolean {
  return (
    DIRECTIVE.test(text) ||
    MARKER_WITH_CONTENT.test(text) ||
    GLUED_COMMENT.test(text) ||
    LONE_CR.test(text) ||
    OLD_LINE_BREAK.test(text) ||
    // A byte order mark after the first character: `yaml` drops it, js-yaml reads it as text.
    text.indexOf('\ufeff', 1) !== -1 ||
    hasTabIndent(text) ||
    endsWithBlankLine(text) ||
    hasPropertyOrExplicitKey(text)
  );
}

/**
 * Whether a tab is in a line's indentation (only spaces before it on its line): `yaml` rejects most
 * (and js-yaml reads them); where one is allowed, inside a scalar, declining is safe. So the node
 * checks below meet no tab at a line's start.
 */
function hasTabIndent(text: string): boolean {
  for (let tab = text.indexOf('\t'); tab !== -1; tab = text.indexOf('\t', tab + 1)) {
    let before = tab - 1;
    while (text[before] === ' ') before--;
    if (before < 0 || text[before] === '\n') return true;
  }
  return false;
}

/** Whether the last line holds blanks and no line break (js-yaml counts it as one more line of a `|+` scalar). */
function endsWithBlankLine(text: string): boolean {
  let i = text.length - 1;
  while (text[i] === ' ' || text[i] === '\t') i--;
  return i < text.length - 1 && (text[i] === '\n' || text[i] === '\r');
}

/**
 * Whether a tag, anchor or alias, or an explicit key (`? `), may begin a node of the text: one of
 * `!&*`, or `?` before a blank, at the start of a line or after one of BEFORE_NODE (blanks aside).
 * Some places inside scalars match too (`a: x, !y`), which is safe. Outside the subset: js-yaml
 * loses some tags, reads `!` alone otherwise than `yaml`, and turns a collection that is an
 * explicit key without a value into another text.
 */
function hasPropertyOrExplicitKey(text: string): boolean {
  PROPERTY_OR_KEY_INDICATOR.lastIndex = 0;
  for (let match = PROPERTY_OR_KEY_INDICATOR.exec(text); match; match = PROPERTY_OR_KEY_INDICATOR.exec(text)) {
    const at = match.index;
    if (text[at] === '?' && at + 1 < text.length && !isBlank(text.charCodeAt(at + 1))) continue;
    let before = at - 1;
    while (text[before] === ' ' || text[before] === '\t') before--;
    if (before < 0 || BEFORE_NODE.includes(text[before]!)) return true;
  }
  return false;
}

/** A node js-yaml has begun: where composeNode began (before blanks and comments), and where its content begins. */
interface Frame {
  open: number;
  start?: number;
}

type NodeState = State & { anchor: string | null; kind: string | null; position: number };

/**
 * The checks of each node js-yaml reads, fed by its listener (`on`): `outside` once a node lies
 * outside the subset. Open nodes are kept as a stack, so a node's block collection (the innermost
 * one around it) gives the indentation its continuation lines must exceed.
 */
export class NodeChecks {
  /** Whether a node read so far lies outside the subset. */
  outside = false;
  private readonly frames: Frame[] = [];

  constructor(private readonly text: string) {}

  /** js-yaml's listener: 'open' when composeNode begins a node, 'close' when it has read it. */
  on(event: string, state: State): void {
    const node = state as NodeState;
    if (event === 'open') {
      this.frames.push({ open: node.position });
      return;
    }
    if (event !== 'close') return;
    const frame = this.frames.pop();
    if (this.outside || !frame) return;
    if (node.anchor !== null) this.outside = true;
    // A collection followed by `:` is a key (`[a]: b`, `{a: 1}: b`, `? [a]\n: b`).
    else if ((node.kind === 'sequence' || node.kind === 'mapping') && nextSignificant(this.text, node.position) === ':')
      this.outside = true;
    else this.outside = !this.fits(frame, node.kind, node.position);
  }

  /** Whether a node read from `frame` to `end` is indented as `yaml` requires (multi-line flow and quoted, block scalars). */
  private fits(frame: Frame, kind: string | null, end: number): boolean {
    // Only a quoted scalar, a flow collection or a block scalar (which ends its last line) can be
    // outside: the character before `end` tells the others apart without looking for the start.
    if (end < this.text.length && !CLOSING.includes(this.text[end - 1]!)) return true;
    const start = this.startOf(frame);
    if (start >= end) return true;
    const first = this.text[start];
    const quoted = (first === '"' || first === "'") && kind === 'scalar';
    const flow = (first === '[' || first === '{') && (kind === 'sequence' || kind === 'mapping');
    if (quoted || flow) return continuationIndented(this.text, start, end, this.blockIndent(start));
    if ((first === '|' || first === '>') && kind === 'scalar') return blockScalarFits(this.text, start, this.blockIndent(start));
    return true;
  }

  /** Where the content of a node begins: after the blanks, line breaks and comments before it. */
  private startOf(frame: Frame): number {
    if (frame.start !== undefined) return frame.start;
    const text = this.text;
    let i = frame.open;
    for (;;) {
      while (i < text.length && isBlank(text.charCodeAt(i))) i++;
      if (text[i] !== '#' || (i > 0 && !isBlank(text.charCodeAt(i - 1)))) break;
      while (i < text.length && text[i] !== '\n') i++;
    }
    frame.start = i;
    return i;
  }

  /**
   * Indentation of the innermost block collection around the node being closed (whose content
   * begins at `nodeStart`); -1 at the top. js-yaml may open a node twice (a block sequence's entry,
   * then the node itself): a frame that begins where the node does is the node.
   */
  private blockIndent(nodeStart: number): number {
    for (let i = this.frames.length - 1; i >= 0; i--) {
      const start = this.startOf(this.frames[i]!);
      const first = this.text[start];
      if (start !== nodeStart && first !== '[' && first !== '{') return start - (this.text.lastIndexOf('\n', start - 1) + 1);
    }
    return -1;
  }
}

/**
 * The last character before the end of a quoted scalar, a flow collection, or a block scalar (which
 * js-yaml ends after a line break, or after the blanks that indent the line that is no longer its own).
 */
const CLOSING = '"\'}]\n\r \t';

/** Whether a character code is a space, tab or line break. */
const isBlank = (code: number): boolean => code === 32 || code === 9 || code === 10 || code === 13;

/** The first character at or after `from` that is not a space, tab, line break or comment ('' at the end). */
function nextSignificant(text: string, from: number): string {
  let i = from;
  for (;;) {
    while (i < text.length && isBlank(text.charCodeAt(i))) i++;
    if (text[i] !== '#') return text[i] ?? '';
    while (i < text.length && text[i] !== '\n') i++;
  }
}

/** Spaces at the start of the line that begins at `from`, and the character after them ('' at the end). */
function lineStart(text: string, from: number): { spaces: number; next: string } {
  let i = from;
  while (text[i] === ' ') i++;
  return { spaces: i - from, next: text[i] ?? '' };
}

const isLineEnd = (c: string): boolean => c === '' || c === '\n' || c === '\r';

/**
 * Whether every line a multi-line flow collection or quoted scalar continues on (from `start` to
 * `end`) is indented by more than `indent` spaces, or holds only spaces.
 */
function continuationIndented(text: string, start: number, end: number, indent: number): boolean {
  for (let i = text.indexOf('\n', start); i !== -1 && i < end; i = text.indexOf('\n', i + 1)) {
    const { spaces, next } = lineStart(text, i + 1);
    if (!isLineEnd(next) && spaces <= indent) return false;
  }
  return true;
}

/**
 * Whether a block scalar (header at `start`, in a block collection indented by `indent`) has no
 * indentation indicator (`|2`) and no blank line longer than its first content line's indentation
 * (or, without content, than `indent`): js-yaml and `yaml` read some of those differently (the
 * spec calls a longer blank line before the content an error). Its lines: the ones after the header, up to
 * the first one with content indented by `indent` or less.
 */
function blockScalarFits(text: string, start: number, indent: number): boolean {
  if (/^[|>][-+]?[0-9]/.test(text.slice(start, start + 3))) return false;
  let longestBlank = 0;
  let contentIndent: number | undefined;
  for (let i = text.indexOf('\n', start); i !== -1; i = text.indexOf('\n', i + 1)) {
    const { spaces, next } = lineStart(text, i + 1);
    if (isLineEnd(next)) longestBlank = Math.max(longestBlank, spaces);
    else if (spaces <= indent) break;
    else contentIndent ??= spaces;
  }
  return longestBlank <= (contentIndent ?? indent);
}
