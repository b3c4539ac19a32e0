import { Type } from '../../engine/typebox.js';
import { randomBytes } from 'node:crypto';
import type { GatewayClient, SendTextRequest, SendTextResult, TemplateIntent } from '../../adapters/gateway/gateway-client.js';
import { TEMPLATE_KEYS } from '../../adapters/gateway/templates.js';
import { maskPhone } from '../../adapters/phones/mask-phone.js';
import { instanceIdParam, phoneParam } from './lib/params.js';
import { instanceClient, recordedCall } from './lib/instance-client.js';
import { settleStartedSend, type StartedSend, startedSendOf } from './lib/send-recovery.js';
import { GatewayHttpError } from '../../adapters/gateway/errors/gateway-http-error.js';
import type { JsonObject, NodeContext } from '../../engine/types.js';
import type { ServicesOf } from '../services.js';
import { defineServiceNode } from '../services.js';

/** Most messages one step sends (one reply split into parts). */
const MAX_MESSAGES = 50;
/** Most body parameters of a template. */
const MAX_TEMPLATE_PARAMETERS = 10;
/** Upper bound of a typing delay, ms. */
const MAX_TYPING_MS = 120_000;
/** Upper bound of the wait for a provider's evidence of a started send, ms. */
const MAX_EVIDENCE_WAIT_MS = 600_000;

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
 * once. Sent once: each message is recorded as started (with a send id the provider echoes where it
 * can) before its call and as delivered after it; a take-over that finds a started message waits
 * `evidence_wait_ms` for the provider's evidence (lib/send-recovery.ts, adapters/gateway/send-evidence.ts)
 * and, without it, applies `unconfirmed`. Outputs `{sent, sent_as, text, results}`; outbound: a dry
 * run records each call (token masked) and sends nothing. Needs the gateway client factory and the
 * instance directory; reads the key-value store for evidence.
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
      evidence_wait_ms: Type.Integer({
        minimum: 0,
        maximum: MAX_EVIDENCE_WAIT_MS,
        default: 10_000,
        description:
          "For a message this step started and whose answer was never recorded (the process died during the call): how long to wait for the provider's own evidence that it accepted it (uazapi's echo with the send's track_id, the Cloud API's status with its biz_opaque_callback_data, Evolution's send.message with the same text), ms. With it the message counts as sent; without it, `unconfirmed` decides.",
        examples: ['{{ env.LEADFLOW_SEND_EVIDENCE_WAIT_MS }}', 10000],
      }),
      unconfirmed: Type.Union([Type.Literal('resend'), Type.Literal('skip')], {
        default: 'resend',
        description:
          'A message started and never confirmed (no evidence within evidence_wait_ms, or a provider whose webhooks give none, e.g. uazapi excluding wasSentByApi): `resend` sends it again (the lead may get it twice; never lost), `skip` counts it as sent (never twice; it may be lost). Each such message is counted in leadflow_gateway_send_recoveries_total{provider, outcome}.',
        examples: ['{{ env.LEADFLOW_SEND_UNCONFIRMED }}', 'resend'],
      }),
      template: Type.Optional(
        Type.Union(
          [
            Type.Object(
              {
                purpose: Type.Union(
                  TEMPLATE_KEYS.map((k) => Type.Literal(k)),
                  {
                    description:
                      "The purpose in the instance's template set: primeiro_contato, alerta_hunter, follow_up or lembrete_consulta.",
                  },
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
      "`{sent, sent_as, text, results: [{messageid, delay, at}]}`: messages sent; `sent_as` `text`, or `template` when the template went instead (then `sent` is 1 and `text` is the template's rendered body, what the lead received: record it in memory); `text` otherwise the texts sent, joined by a blank line; per message the gateway's message id (null when it gave none), the delay used (ms) and `at`, when it went (ISO 8601; the transcript's time of the paragraph). In dry-run: `{sent: 0, dry_run: true, sent_as: 'text', text, results: [{messageid: null, delay, at}]}`.",
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
    const progress = progressOf(ctx.dryRun ? undefined : ctx.state, texts.length);
    for (let index = progress.sent; index < texts.length && progress.viaTemplate === undefined; index++) {
      const started = progress.started?.index === index ? progress.started : undefined;
      const delay = started ? started.delay : typingDelay(params.typing_min_ms, params.typing_max_ms);
      const send_id = started ? started.send_id : newSendId();
      const body = { number: params.number, text: texts[index]!, delay, send_id, ...(template ? { template } : {}) };
      if (started) {
        const settled = await settleStartedSend(ctx, client, body, {
          instanceId: params.instance_id,
          waitMs: params.evidence_wait_ms,
          policy: params.unconfirmed,
        });
        if (settled.delivered) {
          progress.results.push({ messageid: settled.messageid, delay, at: new Date().toISOString() });
          progress.sent++;
          continue;
        }
      }
      const perform = ctx.recordOutbound({ kind: 'gateway', ...recordedCall(client, { op: 'send-text', request: body }) });
      if (!perform) {
        progress.results.push({ messageid: null, delay, at: new Date().toISOString() });
        continue;
      }
      await sendOne(ctx, client, body, progress, { index, instanceId: params.instance_id, of: texts.length });
    }
    ctx.log('debug', 'gateway messages sent', {
      to: maskPhone(params.number),
      instance_id: params.instance_id,
      sent: progress.sent,
      ...(progress.viaTemplate !== undefined ? { sent_as: 'template' } : {}),
    });
    const what =
      progress.viaTemplate !== undefined
        ? { sent_as: 'template', text: progress.viaTemplate }
        : { sent_as: 'text', text: texts.join('\n\n') };
    const { sent, results } = progress;
    return ctx.dryRun ? { sent, dry_run: true, ...what, results } : { sent, ...what, results };
  },
});

/** One message's result: the gateway's message id (null when it gave none), the typing delay used (ms) and when it went (ISO 8601). */
type SendResult = { messageid: string | null; delay: number; at?: string };

/** Where a step's sends stand: messages delivered, their results, the template that went instead, the send started and not finished. */
interface SendProgress {
  sent: number;
  results: SendResult[];
  viaTemplate: string | undefined;
  started: StartedSend | undefined;
}

/**
 * What an earlier run of this step left (a retry, or a resume after a crash; ctx.state, written by
 * ctx.checkpoint): messages already delivered are not sent again. Nothing in a dry run.
 */
function progressOf(state: JsonObject | undefined, count: number): SendProgress {
  const sent = typeof state?.delivered === 'number' ? Math.min(state.delivered, count) : 0;
  const results = Array.isArray(state?.results) && sent > 0 ? (state.results as SendResult[]).slice(0, sent) : [];
  // A template that went instead (Cloud API, outside the 24-hour window): what the lead received.
  const viaTemplate = state?.sent_as === 'template' && typeof state.text === 'string' ? state.text : undefined;
  return { sent, results, viaTemplate, started: startedSendOf(state) };
}

/** A new send id: 32 hex digits, carried back by providers that can (send-evidence.ts). */
function newSendId(): string {
  return randomBytes(16).toString('hex');
}

/**
 * Sends one message and records the progress: the send as started before the call (so a take-over
 * asks the provider instead of sending blindly), as delivered after it. A refusal the gateway
 * answered clears the started send (a retry sends again at once); a timeout or a lost connection
 * leaves it (the message may have gone). Rethrows the call's error.
 */
async function sendOne(
  ctx: NodeContext<ServicesOf<'gateway' | 'instances'>>,
  client: GatewayClient,
  body: SendTextRequest & { send_id: string; delay: number },
  progress: SendProgress,
  where: { index: number; instanceId: number; of: number },
): Promise<void> {
  const { sent, results } = progress;
  await ctx.checkpoint?.({ delivered: sent, results, pending: { index: where.index, send_id: body.send_id, delay: body.delay } });
  let answer: SendTextResult;
  try {
    answer = await client.sendText(body, { signal: ctx.signal });
  } catch (err) {
    if (err instanceof GatewayHttpError) await ctx.checkpoint?.({ delivered: sent, results });
    ctx.log('warn', 'gateway send failed', {
      to: maskPhone(body.number),
      instance_id: where.instanceId,
      sent_before_failure: sent,
      of: where.of,
      error: (err as Error).message,
    });
    throw err;
  }
  progress.results.push({ messageid: answer.messageid, delay: body.delay, at: new Date().toISOString() });
  progress.sent++;
  if (answer.sent_as === 'template') {
    // The template stands for the whole message: the rest would be refused the same way.
    progress.viaTemplate = answer.text ?? '';
    await ctx.checkpoint?.({ delivered: progress.sent, results: progress.results, sent_as: 'template', text: progress.viaTemplate });
  } else if (progress.sent < where.of) await ctx.checkpoint?.({ delivered: progress.sent, results: progress.results });
}
