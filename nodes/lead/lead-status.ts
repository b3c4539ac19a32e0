import { Type } from '../../engine/typebox.js';
import { isTruthy } from '../../engine/expressions.js';
import { defineNode, type JsonValue } from '../../engine/types.js';

/**
 * `lead.status`: what a lead's row says about sending it an automatic message (CONTRACT §7, §9),
 * checked the same way by every flow that writes to a lead (agent.yaml, followup.yaml).
 *
 * Contract, for the `leads` row as `db.get` read it (null: no such row):
 *   - erased: the row is null (the lead was erased by `excluir`, or never existed);
 *   - transferred: `transferido` is true (the Hunter has the lead: rule 7);
 *   - opted_out: `optout_at` is set (the lead asked for no more automatic messages);
 *   - paused: `pausado_ate` is set and later than now, by the system clock (a person of the clinic
 *     took over; it is an ISO 8601 timestamp, anything else fails the step);
 *   - gone: erased, transferred or opted out: no automatic message, however long one waits.
 * A paused lead is not gone: the pause ends by itself at `pausado_ate`.
 */
export interface LeadStatus {
  erased: boolean;
  transferred: boolean;
  opted_out: boolean;
  paused: boolean;
  gone: boolean;
}

/** The status of a lead's row (see LeadStatus) at `nowMs`, ms since the epoch. Throws when `pausado_ate` is set but not a timestamp. */
export function leadStatus(lead: JsonValue | undefined, nowMs: number): LeadStatus {
  const row = lead !== null && typeof lead === 'object' && !Array.isArray(lead) ? lead : null;
  const erased = row === null;
  const transferred = isTruthy(row?.transferido);
  const optedOut = row?.optout_at !== null && row?.optout_at !== undefined;
  const paused = pausedUntil(row?.pausado_ate) > nowMs;
  return { erased, transferred, opted_out: optedOut, paused, gone: erased || transferred || optedOut };
}

/** `pausado_ate` as ms since the epoch; -Infinity when not set. */
function pausedUntil(value: JsonValue | undefined): number {
  if (value === null || value === undefined) return Number.NEGATIVE_INFINITY;
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new Error(`pausado_ate ${JSON.stringify(value)} is not an ISO 8601 timestamp`);
  return ms;
}

/** The `lead.status` node: leadStatus of the row it is given, at the system clock's now. */
export default defineNode({
  type: 'lead.status',
  readOnly: true,
  description:
    'Whether a lead may get an automatic message now, from its `leads` row: `erased` (no row), `transferred` (the Hunter has it), `opted_out` (asked for no more automatic messages), `paused` (a person of the clinic took over until `pausado_ate`, still in the future), and `gone` (erased, transferred or opted out: silence for good; a pause ends by itself). Nothing is read or written: pass the row as `db.get` read it.',
  params: Type.Object(
    {
      lead: Type.Unknown({
        description: 'The `leads` row (with transferido, optout_at, pausado_ate), or null when there is none.',
        examples: ['{{ steps.lead }}'],
      }),
    },
    { additionalProperties: false },
  ),
  output: {
    description: '`{erased, transferred, opted_out, paused, gone}`, each true or false; `gone` is erased, transferred or opted out.',
  },
  examples: [
    {
      title: "The status of the lead's row the flow was given",
      step: { id: 'status', type: 'lead.status', params: { lead: '{{ trigger.body.lead }}' } },
    },
  ],
  async run(params) {
    return { ...leadStatus(params.lead as JsonValue, Date.now()) };
  },
});
