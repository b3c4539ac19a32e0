import { Type } from '../../engine/typebox.js';
import type { Clock } from '../../adapters/clock.js';
import { defineNode } from '../../engine/types.js';
import { instantOf } from './lib/instant.js';
import { lazyModule } from '../lazy-module.js';

/** The hours (and their time-zone library), loaded on the first run: describing or validating flows never needs them. */
const businessHours = lazyModule(() => import('../../adapters/hours/business-hours.js'));

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * `hours.check`: is the clinic open at an instant, and if not, when does it open? Reads a
 * `horario_atendimento` value (CONTRACT.md §9; adapters/hours/business-hours.ts) and answers in the
 * clinic's time zone. "Now" is the host clock (`ctx.services.clock`, default the system time).
 *
 * Contract:
 *   - `hours`: the column value: JSON text, an object, or null / '' (no hours: always open).
 *     A malformed value fails the step with a BusinessHoursError naming every problem.
 *   - `at`: ISO 8601 text (with its offset) or ms since the epoch; default now.
 *   - Output `{open, next_open_at, wait_ms, closes_at, timezone, summary}`: instants as ISO text (UTC);
 *     `wait_ms` 0 when open, the ms until the next opening when closed, null when it never opens;
 *     `closes_at` null when closed or open around the clock; `timezone` null without hours. Searches
 *     look at most 8 days ahead.
 */
export default defineNode({
  type: 'hours.check',
  description:
    "Checks a clinic's business hours (`clinicas_com_atendentes.horario_atendimento`) at an instant, in the clinic's time zone: whether it is open, when it opens next and how long until then, when the current open stretch closes, and a one-line summary in Portuguese. No hours (null) means always open. A malformed value fails the step.",
  params: Type.Object(
    {
      hours: Type.Union([Type.String(), Type.Object({}, { additionalProperties: true }), Type.Null()], {
        description:
          'The business hours: the column value as read (JSON text), an object `{timezone, seg, ter, qua, qui, sex, sab, dom}` with intervals like `"08:00-12:00,13:00-18:00"` per day (missing or empty: closed), or null for always open.',
        examples: [
          '{{ vars.clinic.horario_atendimento }}',
          { timezone: 'America/Sao_Paulo', seg: '08:00-12:00,13:00-18:00', sab: '08:00-12:00', dom: '' },
          null,
        ],
      }),
      at: Type.Optional(
        Type.Union([Type.String({ minLength: 1 }), Type.Number()], {
          description:
            "The instant to check: an ISO 8601 timestamp (with its offset) or ms since epoch. Left out: now, by the host's clock.",
          examples: ['{{ now }}', '2025-03-14T19:00:00-03:00', 1741989600000],
        }),
      ),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      '`{open, next_open_at, wait_ms, closes_at, timezone, summary}`: `open` true or false; `next_open_at` ISO (the instant itself when open; null when it never opens); `wait_ms` 0 when open, ms until the next opening when closed, null when it never opens; `closes_at` ISO end of the current open stretch (null when closed, or open around the clock); `timezone` the IANA zone (null without hours); `summary` the Portuguese line the agent is given.',
  },
  examples: [
    {
      title: "Check the clinic's hours now",
      step: { id: 'hours', type: 'hours.check', params: { hours: '{{ vars.clinic.horario_atendimento }}' } },
    },
    {
      title: 'Is it open when a follow-up falls due?',
      step: {
        id: 'due_hours',
        type: 'hours.check',
        params: { hours: '{{ vars.clinic.horario_atendimento }}', at: '{{ $fromMillis($toMillis(now) + 86400000) }}' },
      },
    },
  ],
  readOnly: true,
  async run(params, ctx) {
    const clock = ctx.services.clock as Clock | undefined;
    const atMs =
      params.at === undefined
        ? (clock?.now() ?? Date.now())
        : instantOf(typeof params.at === 'string' ? params.at.trim() : params.at, 'hours.check: at');
    const { closesAt, describeHours, isOpenAt, nextOpeningAt, parseBusinessHours } = await businessHours();
    const hours = parseBusinessHours(params.hours);
    const open = isOpenAt(hours, atMs);
    const next = nextOpeningAt(hours, atMs);
    return {
      open,
      next_open_at: iso(next),
      wait_ms: next === null ? null : Math.max(0, next - atMs),
      closes_at: iso(closesAt(hours, atMs)),
      timezone: hours?.timezone ?? null,
      summary: describeHours(hours, atMs),
    };
  },
});
