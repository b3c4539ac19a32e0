import { Type } from '../../engine/typebox.js';
import type { TemplateIntent } from '../../adapters/gateway/gateway-client.js';
import { TEMPLATE_KEYS } from '../../adapters/gateway/templates.js';
import { maskPhone } from '../../adapters/phones/mask-phone.js';
import { instanceIdParam, phoneParam } from './lib/params.js';
import { instanceClient, recordedCall } from './lib/instance-client.js';
import { defineServiceNode } from '../services.js';

/** Most messages one step sends (one reply split into parts). */
const MAX_MESSAGES = 50;
/** Most body parameters of a template. */
const MAX_TEMPLATE_PARAMETERS = 10;
/** Upper bound of a typing delay, ms. */
const MAX_TYPING_MS = 120_000;

/** A whole number of ms in [min, max] (max below min counts as min). */
function typingDelay(min: number, max: number): number {
  const high = Math.max(min, max);
  return min + Math.floor(Math.random() * (high - min + 1));
}

/**
 * `gateway.send`: sends one or more texts to a number through the instance's gateway, whatever its
 * provider, one by one in order (blank ones skipped, at most MAX_MESSAGES), each with a random typing
 * delay in [typing_min_ms, typing_max_ms]. With `template`, where free text is allowed only within the
 * lead's 24-hour window (Cloud API) and it is closed, the instance's approved template goes instead,
 * once. Outputs `{sent, sent_as, text, results}`; outbound: a dry run records each call (token
 * masked) and sends nothing. Needs the gateway client factory and the instance directory.
 */
export default defineServiceNode({
  type: 'gateway.send',
  services: ['gateway', 'instances'],
  description:
    "Sends one or more WhatsApp texts to a number through the instance's gateway, whatever its provider (uazapi: POST {server_url}/send/text), one by one in order, each awaited. Each message carries a random `delay` (ms) in [typing_min_ms, typing_max_ms], shown to the lead as \"typing…\". Blank texts are skipped. With `template`, where the provider allows free text only within 24 hours of the lead's last message (Cloud API) and that window is closed (or the provider refuses the text as outside it), the instance's approved template for that purpose goes instead, once, and nothing after it; uazapi and Evolution ignore `template`. In dry-run each call is recorded (token masked) and nothing is sent.",
  outbound: true,
  params: Type.Object(
    {
      instance_id: instanceIdParam(),
      number: phoneParam('Recipient.'),
      messages: Type.Union([Type.String(), Type.Array(Type.String(), { maxItems: MAX_MESSAGES })], {
        description: `The text, or a list of texts sent as separate messages in list order (at most ${MAX_MESSAGES}).`,
        examples: [
          ['Olá, Maria! Aqui é a Ana da Clínica Sorriso.', 'Vi que você tem interesse no protocolo de clareamento.'],
          '{{ vars.reply_parts }}',
        ],
      }),
      typing_min_ms: Type.Integer({
        minimum: 0,
        maximum: MAX_TYPING_MS,
        default: 1500,
        description: 'Shortest simulated typing delay per message, ms (sent to the gateway as `delay`).',
        examples: ['{{ env.LEADFLOW_TYPING_MIN_MS }}', 1500],
      }),
      typing_max_ms: Type.Integer({
        minimum: 0,
        maximum: MAX_TYPING_MS,
        default: 4000,
        description: 'Longest simulated typing delay per message, ms; below typing_min_ms it counts as typing_min_ms.',
        examples: ['{{ env.LEADFLOW_TYPING_MAX_MS }}', 4000],
      }),
      template: Type.Optional(
        Type.Union(
          [
            Type.Object(
              {
                purpose: Type.Union(
                  TEMPLATE_KEYS.map((k) => Type.Literal(k)),
                  { description: "The purpose in the instance's template set: primeiro_contato, alerta_hunter or follow_up." },
                ),
                parameters: Type.Array(Type.String(), {
                  maxItems: MAX_TEMPLATE_PARAMETERS,
                  default: [],
                  description: "The template's body parameters in order ({{1}}, {{2}}, …); line breaks become spaces.",
                }),
              },
              { additionalProperties: false },
            ),
            Type.Null(),
          ],
          {
            default: null,
            description:
              "The approved template standing for these messages where free text may not go (Cloud API's 24-hour rule): sent instead, once, when the lead's window is closed or the provider refuses the text as outside it. Ignored by providers without templates, and when the instance has no template for the purpose. Absent or null: texts only.",
            examples: [{ purpose: 'primeiro_contato', parameters: ['{{ steps.name.first }}', '{{ steps.clinic.nome }}'] }],
          },
        ),
      ),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      "`{sent, sent_as, text, results: [{messageid, delay}]}`: messages sent; `sent_as` `text`, or `template` when the template went instead (then `sent` is 1 and `text` is the template's rendered body, what the lead received: record it in memory); `text` otherwise the texts sent, joined by a blank line; per message the gateway's message id (null when it gave none) and the delay used (ms). In dry-run: `{sent: 0, dry_run: true, sent_as: 'text', text, results: [{messageid: null, delay}]}`.",
  },
  examples: [
    {
      title: 'Send an agent reply split into parts, with typing delays from the environment',
      step: {
        id: 'send_reply',
        type: 'gateway.send',
        params: {
          instance_id: '{{ vars.lead.instancia_id }}',
          number: '{{ vars.lead.remotejid }}',
          messages: '{{ vars.reply_parts }}',
          typing_min_ms: '{{ env.LEADFLOW_TYPING_MIN_MS }}',
          typing_max_ms: '{{ env.LEADFLOW_TYPING_MAX_MS }}',
        },
      },
    },
    {
      title: 'Confirm a command with one fixed text',
      step: {
        id: 'confirm',
        type: 'gateway.send',
        params: { instance_id: 1, number: '5543999806366', messages: 'Conversa redefinida ✅', typing_min_ms: 0, typing_max_ms: 0 },
      },
    },
  ],
  async run(params, ctx) {
    const texts = (Array.isArray(params.messages) ? params.messages : [params.messages]).filter((t) => t.trim() !== '');
    if (texts.length === 0) return { sent: 0, sent_as: 'text', text: '', results: [] };
    const template: TemplateIntent | undefined = params.template
      ? { purpose: params.template.purpose, parameters: params.template.parameters ?? [] }
      : undefined;
    const { client } = await instanceClient(ctx.services, params.instance_id);
    // Messages this step already delivered in an earlier run (a retry, or a resume after a crash):
    // skipped, so the lead never gets one twice. Recorded after each delivery (ctx.checkpoint).
    const done = typeof ctx.state?.delivered === 'number' && !ctx.dryRun ? Math.min(ctx.state.delivered, texts.length) : 0;
    const results: Array<{ messageid: string | null; delay: number }> =
      Array.isArray(ctx.state?.results) && done > 0
        ? (ctx.state.results as Array<{ messageid: string | null; delay: number }>).slice(0, done)
        : [];
    let sent = done;
    // A template that went instead (Cloud API, outside the 24-hour window): what the lead received.
    let viaTemplate: string | undefined =
      ctx.state?.sent_as === 'template' && typeof ctx.state.text === 'string' && !ctx.dryRun ? ctx.state.text : undefined;
    for (const text of viaTemplate === undefined ? texts.slice(done) : []) {
      const delay = typingDelay(params.typing_min_ms, params.typing_max_ms);
      const body = { number: params.number, text, delay, ...(template ? { template } : {}) };
      const perform = ctx.recordOutbound({ kind: 'gateway', ...recordedCall(client, { op: 'send-text', request: body }) });
      if (!perform) {
        results.push({ messageid: null, delay });
        continue;
      }
      try {
        const answer = await client.sendText(body, { signal: ctx.signal });
        results.push({ messageid: answer.messageid, delay });
        sent++;
        if (answer.sent_as === 'template') {
          // The template stands for the whole message: the rest would be refused the same way.
          viaTemplate = answer.text ?? '';
          await ctx.checkpoint?.({ delivered: sent, results, sent_as: 'template', text: viaTemplate });
          break;
        }
        if (sent < texts.length) await ctx.checkpoint?.({ delivered: sent, results });
      } catch (err) {
        // A retry of this step sends only the messages after the last delivered one.
        ctx.log('warn', 'gateway send failed', {
          to: maskPhone(params.number),
          instance_id: params.instance_id,
          sent_before_failure: sent,
          of: texts.length,
          error: (err as Error).message,
        });
        throw err;
      }
    }
    ctx.log('debug', 'gateway messages sent', {
      to: maskPhone(params.number),
      instance_id: params.instance_id,
      sent,
      ...(viaTemplate !== undefined ? { sent_as: 'template' } : {}),
    });
    const what = viaTemplate !== undefined ? { sent_as: 'template', text: viaTemplate } : { sent_as: 'text', text: texts.join('\n\n') };
    return ctx.dryRun ? { sent, dry_run: true, ...what, results } : { sent, ...what, results };
  },
});
