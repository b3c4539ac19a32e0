import { Type } from '../../engine/typebox.js';
import type { JsonValue } from '../../engine/types.js';
import { defineServiceNode } from '../services.js';
import { sentRows, type TranscriptRow, transcriptRowSchema } from './lib/transcript-rows.js';

// Who the rows name as `autor` (the shipped flows' convention, CONTRACT §13):
//   lead     the lead's own messages (`entrada`)
//   agente   the AI agent's words: its replies (each paragraph), intake's first or return message
//   sistema  LeadFlow's fixed texts and scheduled sends: command and opt-out confirmations, "Presença
//            confirmada ✅", the holding message, templates (`tipo` `modelo`, the rendered text),
//            reminders (`autor_nome` "Lembrete"), follow-ups ("Acompanhamento"), and automatic events
//   equipe   the clinic's people: typed on the clinic's phone, and the events of their console actions

/** Most rows one step records (one reply's paragraphs are at most gateway.send's 50). */
const MAX_ROWS = 60;

/**
 * `transcript.record`: writes rows of the transcript people read (`mensagens`, CONTRACT §13) once
 * each: every row carries a `chave` unique per clinic, so a replay or a take-over of the step keeps
 * the row recorded first (`on_conflict: keep`), or, with `content`, only brings its `conteudo` up to
 * date (a medium's converted text replacing its placeholder). Rows come from `rows` as given and
 * from `sent`: a `gateway.send` step's output and the texts it was given, one row per paragraph the
 * lead received (its provider message id and the time it went), or one `modelo` row with the
 * template's rendered text when the template went instead. Outputs `{recorded, ids}`: rows this step
 * inserted, and the ids of every row named. Reads the database; a host without one (`leadflow test`,
 * where db steps are mocked by id) records nothing: `{recorded: 0, ids: []}`.
 */
export default defineServiceNode({
  type: 'transcript.record',
  services: [],
  description:
    "Records rows of the lead's transcript (table `mensagens`) once each, keyed by `chave` (unique per clinic): a replay or take-over of the step records nothing twice. `rows` are written as given; `sent` turns a gateway.send step's output into one `saida` row per paragraph sent (with the provider's message id and the time it went), or one `modelo` row with the template's text when the template went instead.",
  params: Type.Object(
    {
      clinica_id: Type.Integer({ minimum: 1, description: "The lead's clinic.", examples: ['{{ vars.lead.clinica_id }}'] }),
      lead_id: Type.Integer({ minimum: 1, description: 'The lead (`leads.id`).', examples: ['{{ vars.lead.id }}'] }),
      rows: Type.Array(transcriptRowSchema(), {
        maxItems: MAX_ROWS,
        default: [],
        description: 'Rows written as given (events, a received message, a fixed text).',
        examples: [
          [
            {
              direcao: 'saida',
              autor: 'sistema',
              tipo: 'evento',
              conteudo: 'Agente pausado',
              chave: "{{ 'pausa:' & vars.message_id }}",
            },
          ],
        ],
      }),
      sent: Type.Union(
        [
          Type.Object(
            {
              messages: Type.Union([Type.String(), Type.Array(Type.String())], {
                description: 'The `messages` the gateway.send step was given (blank ones were skipped by it, and are here).',
              }),
              output: Type.Unknown({ description: "The gateway.send step's output (`steps.<id>`)." }),
              chave: Type.String({
                minLength: 1,
                description: "Prefix of the rows' keys: paragraph i is `<chave>:<i>`.",
                examples: ["{{ 'resposta:' & vars.message_id }}"],
              }),
              autor: Type.Optional(
                Type.Union([Type.Literal('agente'), Type.Literal('sistema'), Type.Literal('equipe')], {
                  default: 'sistema',
                  description:
                    "Who the words are: `agente` for the AI agent's reply, `sistema` for fixed texts, templates, reminders and follow-ups.",
                }),
              ),
              autor_nome: Type.Optional(
                Type.String({
                  default: '',
                  description: 'Label shown over the bubble (e.g. "Lembrete", "Acompanhamento"); empty: none.',
                }),
              ),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ],
        {
          default: null,
          description: "A gateway.send step's result to record, one row per paragraph; null: none.",
          examples: [
            {
              messages: '{{ vars.reply_parts }}',
              output: '{{ vars.sent }}',
              chave: "{{ 'resposta:' & vars.message_id }}",
              autor: 'agente',
            },
          ],
        },
      ),
      on_conflict: Type.Union([Type.Literal('keep'), Type.Literal('content')], {
        default: 'keep',
        description: '`keep`: a row whose chave exists stays as it is; `content`: its `conteudo` is replaced (a medium converted to text).',
        examples: ['content'],
      }),
    },
    { additionalProperties: false },
  ),
  output: { description: '`{recorded, ids}`: rows this step inserted, and the ids of every row it named, in order.' },
  examples: [
    {
      title: "Record an agent's reply, one row per paragraph",
      step: {
        id: 'record_reply',
        type: 'transcript.record',
        params: {
          clinica_id: '{{ vars.lead.clinica_id }}',
          lead_id: '{{ vars.lead.id }}',
          sent: {
            messages: '{{ vars.reply_parts }}',
            output: '{{ vars.sent }}',
            chave: "{{ 'resposta:' & vars.message_id }}",
            autor: 'agente',
          },
        },
      },
    },
  ],
  async run(params, ctx) {
    const rows: TranscriptRow[] = [...params.rows];
    if (params.sent) rows.push(...sentRows(params.sent as Parameters<typeof sentRows>[0]));
    const db = ctx.services.db;
    if (!db) return { recorded: 0, ids: [] };
    let recorded = 0;
    const ids: JsonValue[] = [];
    for (const row of rows) {
      const values = {
        clinica_id: params.clinica_id,
        lead_id: params.lead_id,
        direcao: row.direcao,
        autor: row.autor,
        autor_nome: row.autor_nome ? row.autor_nome : null,
        tipo: row.tipo,
        conteudo: row.conteudo ?? '',
        chave: row.chave,
        provider_message_id: row.provider_message_id ? row.provider_message_id : null,
        ...(row.status ? { status: row.status } : {}),
        ...(row.at ? { created_at: row.at } : {}),
        ...(row.midia_ref ? { midia_ref: row.midia_ref, midia_tipo: row.midia_tipo ? row.midia_tipo : null } : {}),
      };
      const { row: stored, inserted } = await db.upsert('mensagens', values, { conflict: ['clinica_id', 'chave'], on_conflict: 'keep' });
      if (inserted) recorded++;
      else if (params.on_conflict === 'content' && stored.conteudo !== values.conteudo) {
        await db.update('mensagens', { id: stored.id }, { conteudo: values.conteudo });
      }
      ids.push(stored.id ?? null);
    }
    return { recorded, ids };
  },
});
