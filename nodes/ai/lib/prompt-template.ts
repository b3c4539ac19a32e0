// Prompt texts with `{{name}}` placeholders, as the prompt files of flows/prompts/ are written: the
// agent's system prompt (ai.agent) and the messages `ai.generate` writes from a file (`values`).
//
// Contract:
//   - A placeholder is `{{name}}` or `{{name.member.member}}` (letters, digits, `_`; spaces inside
//     the braces allowed); each is replaced in one pass, so a value that itself holds `{{x}}` is left
//     as it is. The value is inserted as a `{{ }}` expression is into a longer parameter text:
//     strings as they are, null (and a member a row does not have) as empty, other values as JSON.
//   - A first name `values` does not have is an error naming it and the known ones: a typo in a
//     prompt must not reach a lead. A member of a null row is empty (a clinic without a protocol).
//   - HTML comments (`<!-- ... -->`, with the white space after them) are removed: they document the
//     file for its editors and are not part of the prompt. The result is trimmed.
import type { JsonValue } from '../../../engine/types.js';

/**
 * `template` with each `{{name}}` / `{{name.member}}` replaced from `values` (as placeholderText)
 * and its `<!-- comments -->` removed, trimmed. Throws on a placeholder whose first name `values`
 * does not have, naming it and the known ones.
 */
export function renderTemplate(template: string, values: Record<string, JsonValue>): string {
  const withoutComments = template.replace(/<!--[\s\S]*?-->\s*/g, '');
  return withoutComments
    .replace(/\{\{\s*([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g, (_, path: string) => {
      const [name, ...members] = path.split('.') as [string, ...string[]];
      if (!Object.hasOwn(values, name))
        throw new Error(`prompt template: unknown placeholder {{${path}}}; known: ${Object.keys(values).join(', ')}`);
      return placeholderText(memberOf(values[name]!, members));
    })
    .trim();
}

/** The member at `members` of `value`; null where a step of the path is not an object holding it. */
function memberOf(value: JsonValue, members: string[]): JsonValue {
  let current = value;
  for (const member of members) {
    if (current === null || typeof current !== 'object' || Array.isArray(current) || !Object.hasOwn(current, member)) return null;
    current = current[member]!;
  }
  return current;
}

/**
 * A placeholder value as the text it stands for, the way a `{{ }}` expression is inserted into a
 * longer parameter text: strings as they are, null as empty, every other value as JSON.
 */
export function placeholderText(value: JsonValue): string {
  if (value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
