// POST /admin/leads/:id/messages (CONTRACT.md §13): a person's reply to a lead, sent through the
// lead's instance by one execution of flows/lead-reply.yaml (input {lead_id, text, autor, chave,
// template, primeiro_nome}), awaited to its end. Bodies: people-api-types.ts ReplyRequest.
//   201 ReplyResponse      the transcript row written and until when the agent is paused
//   400 {error}            body not JSON
//   404 {error}            no such lead, or one outside the principal's scope (lead-scope.ts)
//   409 ReplyConflict      `optout`: an opted-out lead without `confirm_optout: true`; `window`: a
//                          Cloud API lead who has not written in 24 hours (only `{template: "follow_up"}`
//                          may go); nothing sent
//   409 {error}            the flow `lead-reply` is not loaded
//   413 {error, details}   body over 16 KB or past a shape limit of json-limits.ts
//   422 {error, details}   a bad id; a body that is not {text} or {template: "follow_up"}; a text that
//                          is empty, only spaces or over 4,096 characters; a template on an instance
//                          without one; nothing sent
//   502 {error}            the gateway did not take the message (the failed execution is in Execuções)
// Each reply writes one `resposta` audit row (its type and length; never the text or the phone).
import { randomBytes } from 'node:crypto';
import express, { type Response, type Router } from 'express';
import { CustomerWindow } from '../../adapters/gateway/cloud/customer-window.js';
import { renderTemplateText } from '../../adapters/gateway/cloud/templates.js';
import { readTemplateSet } from '../../adapters/gateway/templates.js';
import type { Database } from '../../adapters/db/database.js';
import type { Row } from '../../adapters/db/table-ops.js';
import type { KeyValue } from '../../adapters/kv/key-value.js';
import type { Engine } from '../../engine/engine.js';
import { enforceJsonLimits } from '../../engine/triggers/json-limits.js';
import { sendError } from '../../engine/triggers/webhook-pipeline.js';
import { recordAudit } from './audit.js';
import { type InputProblem, leadIdOrProblem, sendApiError, sendInvalid } from './lead-rows.js';
import { visibleLead } from './lead-scope.js';
import type { ReplyConflict, ReplyResponse, TranscriptMessage } from './people-api-types.js';
import { principalName, principalOf } from './principal.js';

/** The flow a reply runs as. */
export const LEAD_REPLY_FLOW = 'lead-reply';
/** The longest reply, characters (WhatsApp's text limit is 4,096). */
export const MAX_REPLY_CHARS = 4096;
const BODY_LIMIT = '16kb';
const withinJsonLimits = enforceJsonLimits(sendError, (req) => req.body);

/** What the reply route reads besides the database and engine: the Cloud window's store and clock. */
export interface LeadReplyDeps {
  db: Database;
  engine: Engine;
  /** Where the Cloud API's 24-hour windows are kept; absent: the window is taken as open. */
  kv?: KeyValue;
  /** The runtime's clock, ms since the epoch; default Date.now. */
  now?: () => number;
}

/** A checked reply body: the text, or the follow_up template; and the opt-out confirmation. */
type Reply = { text: string; template: false; confirmOptout: boolean } | { text: ''; template: true; confirmOptout: boolean };

/** The body as a Reply, or its problems (see the header). */
export function replyOf(body: unknown): Reply | InputProblem[] {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    return [{ path: '(body)', message: 'deve ser um objeto {"text"} ou {"template": "follow_up"}' }];
  const { text, template, confirm_optout, ...rest } = body as Record<string, unknown>;
  const problems: InputProblem[] = Object.keys(rest).map((key) => ({ path: key, message: 'campo desconhecido' }));
  if (confirm_optout !== undefined && typeof confirm_optout !== 'boolean')
    problems.push({ path: 'confirm_optout', message: 'deve ser true ou false' });
  if (template !== undefined) {
    if (template !== 'follow_up') problems.push({ path: 'template', message: 'só o modelo "follow_up" pode ser enviado' });
    if (text !== undefined) problems.push({ path: 'text', message: 'envie o texto ou o modelo, não os dois' });
  } else if (typeof text !== 'string') problems.push({ path: 'text', message: 'deve ser um texto' });
  else if (text.trim() === '') problems.push({ path: 'text', message: 'a mensagem está vazia' });
  else if ([...text].length > MAX_REPLY_CHARS) problems.push({ path: 'text', message: `no máximo ${MAX_REPLY_CHARS} caracteres` });
  if (problems.length > 0) return problems;
  const confirmOptout = confirm_optout === true;
  return template !== undefined ? { text: '', template: true, confirmOptout } : { text: String(text), template: false, confirmOptout };
}

function sendConflict(res: Response, reason: ReplyConflict['reason'], error: string, message: string): void {
  res
    .status(409)
    .json({ error, details: [{ path: reason === 'window' ? 'text' : 'confirm_optout', message }], reason } satisfies ReplyConflict);
}

/** The lead's first name (the follow_up template's parameter), '' without a name. */
const firstName = (lead: Row): string => (typeof lead.nome === 'string' ? (lead.nome.trim().split(/\s+/)[0] ?? '') : '');

/**
 * What goes to the lead, or why nothing may go: on a Cloud instance a text needs the lead's 24-hour
 * window open; a template needs a Cloud instance with a follow_up template (its text is what goes
 * while the window is open).
 */
async function outgoing(deps: LeadReplyDeps, lead: Row, reply: Reply): Promise<{ text: string } | { window: true } | InputProblem> {
  const instance = await deps.db.get('instancias_whatsapp', { id: lead.instancia_id });
  const cloud = instance?.provider === 'cloud';
  if (reply.template) {
    const template = cloud ? readTemplateSet(instance.templates)?.follow_up : undefined;
    if (!template)
      return { path: 'template', message: 'este número não tem modelo de acompanhamento aprovado (só a API oficial usa modelos)' };
    return { text: renderTemplateText(template, [firstName(lead)]) };
  }
  if (cloud && deps.kv) {
    const window = new CustomerWindow(deps.kv, deps.now ? { now: deps.now } : {});
    if (!(await window.isOpen(Number(instance.id), String(lead.remotejid)))) return { window: true };
  }
  return { text: reply.text };
}

/** A `mensagens` row as the transcript shows it. */
export function toTranscriptMessage(row: Row): TranscriptMessage {
  const at = row.created_at instanceof Date ? row.created_at.toISOString() : String(row.created_at);
  return {
    id: Number(row.id),
    direcao: row.direcao as TranscriptMessage['direcao'],
    autor: row.autor as TranscriptMessage['autor'],
    autor_nome: typeof row.autor_nome === 'string' ? row.autor_nome : null,
    tipo: row.tipo as TranscriptMessage['tipo'],
    conteudo: String(row.conteudo ?? ''),
    status: (row.status ?? null) as TranscriptMessage['status'],
    created_at: at,
  };
}

/** Adds `POST /leads/:id/messages` to the admin router (see the header). */
export function mountLeadReply(router: Router, deps: LeadReplyDeps): void {
  const { db, engine } = deps;
  router.post('/leads/:id/messages', express.json({ limit: BODY_LIMIT }), withinJsonLimits, async (req, res) => {
    const id = leadIdOrProblem(req.params.id);
    const reply = replyOf(req.body);
    const problems = [...(typeof id === 'object' ? [id] : []), ...(Array.isArray(reply) ? reply : [])];
    if (problems.length > 0 || typeof id === 'object' || Array.isArray(reply)) return sendInvalid(res, 'dados inválidos', problems);
    const principal = principalOf(res);
    const lead = await visibleLead(db, principal, id);
    if (!lead) return sendApiError(res, 404, 'lead não encontrado');
    if (lead.optout_at && !reply.confirmOptout)
      return sendConflict(
        res,
        'optout',
        'este lead pediu para não receber mensagens automáticas',
        'confirme o envio com confirm_optout: true',
      );
    const out = await outgoing(deps, lead, reply);
    if ('window' in out)
      return sendConflict(
        res,
        'window',
        'a janela de 24 horas da API oficial do WhatsApp está fechada para este lead',
        'o lead não escreve há mais de 24 horas: só o modelo de acompanhamento ({"template": "follow_up"}) pode ser enviado',
      );
    if ('path' in out) return sendInvalid(res, 'dados inválidos', [out]);
    if (!engine.getFlow(LEAD_REPLY_FLOW)) return sendApiError(res, 409, `o fluxo ${LEAD_REPLY_FLOW} não está carregado`);
    const chave = randomBytes(16).toString('hex');
    const input = {
      lead_id: id,
      text: out.text,
      autor: principalName(principal),
      chave,
      template: reply.template,
      primeiro_nome: firstName(lead),
    };
    const record = await engine.waitForEnd((await engine.start(LEAD_REPLY_FLOW, { body: input })).id);
    const row = await db
      .knex('mensagens')
      .where({ clinica_id: lead.clinica_id, chave: `resposta:${chave}` })
      .first();
    if (record.status !== 'success' || !row)
      return sendApiError(res, 502, 'a mensagem não foi enviada: o WhatsApp da clínica não a aceitou');
    const message = toTranscriptMessage((await db.get('mensagens', { id: row.id })) ?? row);
    await recordAudit(db, principal, {
      acao: 'resposta',
      clinica_id: Number(lead.clinica_id),
      lead_id: id,
      detalhes: { tipo: message.tipo, caracteres: [...out.text].length, ...(lead.optout_at ? { optout_confirmado: true } : {}) },
    });
    const after = await db.get('leads', { id });
    const pausado = after?.pausado_ate;
    res.status(201).json({ message, pausado_ate: typeof pausado === 'string' ? pausado : null } satisfies ReplyResponse);
  });
}
