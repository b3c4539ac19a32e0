import { Type } from '../../engine/typebox.js';
import { defineNode } from '../../engine/types.js';

/**
 * The Hunter's handoff notification, exactly as CONTRACT.md §7 fixes it:
 *
 *   *🚨 LEAD TRANSFERIDO*
 *   ━━━━━━━━━━━━━━━
 *   Telefone: https://wa.me/<digits>
 *   Motivo: <motivo, empty when none>
 *   Resumo: <summary>
 *   Console: <link>
 *
 * The `Resumo:` line is left out when the summary is blank (no conversation history); the
 * `Console:` line (the lead's page in the console, an addition to §7) only when a link is given.
 * Line breaks inside `motivo` or `summary` are collapsed to spaces so the labelled lines stay one
 * line each.
 */
export function handoffNotification(
  phone: string,
  motivo: string | null | undefined,
  summary: string | null | undefined,
  link?: string | null,
): string {
  const oneLine = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();
  const lines = [
    '*🚨 LEAD TRANSFERIDO*',
    '━━━━━━━━━━━━━━━',
    `Telefone: https://wa.me/${phone.replace(/\D/g, '')}`,
    `Motivo: ${oneLine(motivo)}`,
  ];
  const resumo = oneLine(summary);
  if (resumo) lines.push(`Resumo: ${resumo}`);
  const consoleLink = oneLine(link);
  if (consoleLink) lines.push(`Console: ${consoleLink}`);
  return lines.join('\n');
}

/**
 * `handoff.notification`: the handoff message of CONTRACT.md §7 for `phone`, `motivo`, `summary` and
 * an optional console `link` (handoffNotification). Outputs `{text, with_summary}`: the text, and
 * whether it has the `Resumo:` line.
 */
export default defineNode({
  type: 'handoff.notification',
  description:
    'Writes the Hunter\'s handoff notification: bold "LEAD TRANSFERIDO" title with alert marker, a separator line, then `Telefone:` (a wa.me link of the lead phone), `Motivo:` (empty when none), `Resumo:` (only when the summary is not blank) and `Console:` (only when a link is given).',
  params: Type.Object(
    {
      phone: Type.String({
        pattern: '^[0-9]{8,15}$',
        description: 'The lead phone, digits only, country code first.',
        examples: ['{{ vars.lead.remotejid }}'],
      }),
      motivo: Type.Union([Type.String(), Type.Null()], {
        default: '',
        description: 'Reason for the handoff; null or empty gives an empty `Motivo:`.',
        examples: ['{{ trigger.body.motivo }}'],
      }),
      summary: Type.Union([Type.String(), Type.Null()], {
        default: '',
        description: 'Conversation summary; null or blank leaves the `Resumo:` line out.',
        examples: ['{{ steps.summary.summary }}'],
      }),
      link: Type.Union([Type.String(), Type.Null()], {
        default: '',
        description: "A link to the lead's page in the console, as the last line `Console: <link>`; null or empty leaves the line out.",
        examples: ["{{ env.LEADFLOW_CONSOLE_URL != '' ? env.LEADFLOW_CONSOLE_URL & '/leads/' & vars.lead.id : '' }}"],
      }),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{text, with_summary}`: the notification text, and whether it has the `Resumo:` line.' },
  examples: [
    {
      title: 'Notification with the summary when there is one',
      step: {
        id: 'notification',
        type: 'handoff.notification',
        params: { phone: '{{ trigger.body.telefone }}', motivo: '{{ trigger.body.motivo }}', summary: '{{ trigger.body.resumo }}' },
      },
    },
  ],
  async run(params) {
    const text = handoffNotification(params.phone, params.motivo, params.summary, params.link);
    return { text, with_summary: text.includes('\nResumo: ') };
  },
});
