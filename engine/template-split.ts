// Splitting a flow string value into literal text and `{{ … }}` expressions (expressions.ts
// compiles what it finds): braces and quotes inside an expression do not end it.

/** A piece of a string value: literal text, or the source of one `{{ … }}` expression; `offset` in characters. */
export interface Segment {
  text: string;
  isExpr: boolean;
  offset: number;
}

/** Splits a string into literal text and `{{ … }}` segments, honouring braces and quotes inside. */
export function splitTemplate(input: string): Segment[] | { error: string; offset: number } {
  const segments: Segment[] = [];
  let i = 0;
  let textStart = 0;
  while (i < input.length) {
    if (input.startsWith('{{', i)) {
      if (i > textStart) segments.push({ text: input.slice(textStart, i), isExpr: false, offset: textStart });
      const start = i + 2;
      let depth = 0;
      let quote: string | null = null;
      let j = start;
      let end = -1;
      while (j < input.length) {
        const c = input[j]!;
        if (quote) {
          if (c === '\\') j++;
          else if (c === quote) quote = null;
        } else if (c === '"' || c === "'" || c === '`') quote = c;
        else if (c === '{') depth++;
        else if (c === '}') {
          if (depth === 0 && input[j + 1] === '}') {
            end = j;
            break;
          }
          depth = Math.max(0, depth - 1);
        }
        j++;
      }
      if (end < 0) return { error: 'unclosed "{{": expected "}}"', offset: i };
      segments.push({ text: input.slice(start, end), isExpr: true, offset: start });
      i = end + 2;
      textStart = i;
    } else {
      i++;
    }
  }
  if (textStart < input.length) segments.push({ text: input.slice(textStart), isExpr: false, offset: textStart });
  return segments;
}
