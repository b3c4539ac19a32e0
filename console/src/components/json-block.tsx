// A JSON value as indented text in <pre> (rendered as text, never as HTML), under a <details> summary;
// marked translate={false}: it is data, not words for a person.
import { formatJson } from '../format.js';

/** `value` as indented JSON text under a `<details>` summary `label`, closed unless `open`. */
export function JsonBlock({ label, value, open = false }: { label: string; value: unknown; open?: boolean }) {
  return (
    <details class="json" open={open}>
      <summary>{label}</summary>
      <pre translate={false}>{formatJson(value)}</pre>
    </details>
  );
}
