// The reference that engine/load/core-yaml.ts is held to: what the `yaml` package reads from a text,
// with the loader's options (engine/load/yaml-source.ts): its data, or 'problem' when it reports an
// error or a warning, or its data cannot be built (too many aliases).
import { parseDocument } from 'yaml';

/** What `yaml` reads from `text`, as the loader does: its data, or 'problem'. */
export function yamlReads(text: string): unknown {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0 || doc.warnings.length > 0) return 'problem';
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch {
    return 'problem';
  }
}
