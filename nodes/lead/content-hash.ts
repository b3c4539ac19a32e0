import { createHash } from 'node:crypto';
import { Type } from '../../engine/typebox.js';
import { defineNode, type JsonValue } from '../../engine/types.js';

/** JSON with object keys sorted at every level, so equal content always gives equal text. */
export function canonicalJson(value: JsonValue | undefined): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`;
}

/**
 * `content.hash`: `{hash}`, the hex SHA-256 of a value's canonical JSON (canonicalJson: keys sorted),
 * cut to `length` characters: equal content gives an equal hash whatever the key order. Read-only.
 */
export default defineNode({
  type: 'content.hash',
  readOnly: true,
  description:
    'Fingerprint of a JSON value: hex SHA-256 of its canonical JSON (object keys sorted), cut to `length` characters. Equal content gives an equal hash whatever the key order, e.g. to tell a resent form submission from a new one.',
  params: Type.Object(
    {
      value: Type.Unknown({ description: 'Any JSON value.', examples: ['{{ vars.form }}'] }),
      length: Type.Integer({ minimum: 8, maximum: 64, default: 16, description: 'Hex characters kept.', examples: [16] }),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{hash}`: lowercase hex, `length` characters.' },
  examples: [
    { title: 'Fingerprint the organised form', step: { id: 'fingerprint', type: 'content.hash', params: { value: '{{ vars.form }}' } } },
  ],
  async run(params) {
    const hash = createHash('sha256')
      .update(canonicalJson(params.value as JsonValue))
      .digest('hex')
      .slice(0, params.length);
    return { hash };
  },
});
