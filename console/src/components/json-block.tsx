// A JSON value as indented text in <pre> (rendered as text, never as HTML), under a <details> summary.
import { formatJson } from '../format.js';

/** `value` as indented JSON text under a `<details>` summary `label`, closed unless `open`. */
export function JsonBlock({ label, value, open = false }: { label: string; value: unknown; open?: boolean }) {
  return (
    <details class="json" open={open}>
      <summary>{label}</summary>
      <pre>{formatJson(value)}</pre>
    </details>
  );
}
