// Names the alternatives of a schema's `anyOf` / `oneOf` in its validation problems, from each
// alternative's `title`: a body that is none of a flow's accepted shapes is told which shape each
// problem belongs to ("email is required (alternative "by email")") and which shapes there are
// ("must match one of the alternatives: by phone, by email"), instead of a list of unrelated
// requirements ending in "must match a schema in anyOf".

/** The subschema at an ajv `schemaPath` (`#/anyOf/0/required`), or undefined where there is none. */
function subschemaAt(schema: unknown, segments: string[]): unknown {
  let at = schema;
  for (const segment of segments) {
    if (at === null || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[segment];
  }
  return at;
}

/** The segments of an ajv `schemaPath` of the root schema (JSON Pointer, `#/` first); [] for any other. */
function pointerSegments(schemaPath: string): string[] {
  if (!schemaPath.startsWith('#/')) return [];
  return schemaPath
    .slice(2)
    .split('/')
    .map((s) => {
      let decoded = s;
      try {
        decoded = decodeURIComponent(s);
      } catch {
        // Not URI-encoded: taken as written.
      }
      return decoded.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

const titleOf = (schema: unknown): string | undefined => {
  const title = schema && typeof schema === 'object' ? (schema as { title?: unknown }).title : undefined;
  return typeof title === 'string' && title.trim() !== '' ? title.trim() : undefined;
};

/**
 * The title of the innermost titled `anyOf` / `oneOf` alternative that a problem at `schemaPath`
 * belongs to; undefined when it belongs to none, or none of them has a title.
 */
export function alternativeOf(schema: object, schemaPath: string): string | undefined {
  const segments = pointerSegments(schemaPath);
  let found: string | undefined;
  for (let i = 0; i + 1 < segments.length; i++) {
    if ((segments[i] === 'anyOf' || segments[i] === 'oneOf') && /^\d+$/.test(segments[i + 1]!)) {
      found = titleOf(subschemaAt(schema, segments.slice(0, i + 2))) ?? found;
    }
  }
  return found;
}

/**
 * The titles of the alternatives of the `anyOf` / `oneOf` keyword at `schemaPath`
 * (`#/anyOf`), in order; undefined unless every alternative has one.
 */
export function alternativesAt(schema: object, schemaPath: string): string[] | undefined {
  const list = subschemaAt(schema, pointerSegments(schemaPath));
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const titles = list.map(titleOf);
  return titles.every((t): t is string => t !== undefined) ? titles : undefined;
}
