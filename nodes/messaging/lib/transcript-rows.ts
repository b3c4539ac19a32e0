// The rows of the transcript (`mensagens`, CONTRACT §13) as transcript.record takes them, and the
// rows a gateway.send step's output stands for.
import { Type } from '../../../engine/typebox.js';

/** One row as a flow gives it (clinic and lead come from the step). */
export interface TranscriptRow {
  direcao: 'entrada' | 'saida';
  autor: 'lead' | 'agente' | 'equipe' | 'sistema';
  autor_nome?: string | null;
  tipo: 'texto' | 'audio' | 'imagem' | 'video' | 'documento' | 'modelo' | 'evento';
  conteudo?: string | null;
  chave: string;
  provider_message_id?: string | null;
  status?: 'enviada' | 'entregue' | 'lida' | 'falhou' | null;
  /** When it was sent or received (ISO 8601); absent: now. */
  at?: string | null;
  /** A received medium's gateway reference (gateway.parse's `media_ref`); kept server-side only. */
  midia_ref?: string | null;
  /** That medium's MIME type (gateway.parse's `mimetype`). */
  midia_tipo?: string | null;
}

const literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

/** The schema of one row (see TranscriptRow). */
export function transcriptRowSchema() {
  return Type.Object(
    {
      direcao: literals(['entrada', 'saida'] as const, '`entrada` (from the lead) or `saida` (to the lead; events too).'),
      autor: literals(['lead', 'agente', 'equipe', 'sistema'] as const, 'Who wrote it.'),
      autor_nome: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'A name or label shown over the bubble.' })),
      tipo: literals(['texto', 'audio', 'imagem', 'video', 'documento', 'modelo', 'evento'] as const, 'What it is.'),
      conteudo: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "The text; a medium's text; an event's label." })),
      chave: Type.String({ minLength: 1, description: 'Unique per clinic: what recorded the row (e.g. `in:<message id>`).' }),
      provider_message_id: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "The provider's message id." })),
      status: Type.Optional(Type.Union([literals(['enviada', 'entregue', 'lida', 'falhou'] as const, 'Delivery status.'), Type.Null()])),
      at: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'When (ISO 8601); absent: now.' })),
      midia_ref: Type.Optional(
        Type.Union([Type.String({ maxLength: 512 }), Type.Null()], {
          description:
            "A received medium's gateway reference (`media_ref` of gateway.parse), so the console can fetch it again; never shown.",
        }),
      ),
      midia_tipo: Type.Optional(
        Type.Union([Type.String({ maxLength: 255 }), Type.Null()], {
          description: "The medium's MIME type (`mimetype` of gateway.parse).",
        }),
      ),
    },
    { additionalProperties: false },
  );
}

/** A gateway.send step's result as transcript.record's `sent` takes it. */
export interface SentParam {
  messages: string | string[];
  output: unknown;
  chave: string;
  autor?: 'agente' | 'sistema' | 'equipe';
  autor_nome?: string;
}

type SendOutput = { sent_as?: unknown; text?: unknown; results?: unknown };
type SendResult = { messageid?: unknown; at?: unknown };

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/**
 * The rows a send stands for: one `texto` row per paragraph that went (the non-blank texts, in
 * order, as many as the output's results), keyed `<chave>:<i>`, `enviada` when the provider named
 * its message id; or, when the template went instead, one `modelo` row by `sistema` with its rendered text.
 */
export function sentRows(sent: SentParam): TranscriptRow[] {
  const output = (sent.output && typeof sent.output === 'object' ? sent.output : {}) as SendOutput;
  const results = (Array.isArray(output.results) ? output.results : []) as SendResult[];
  const texts = (Array.isArray(sent.messages) ? sent.messages : [sent.messages]).filter((t) => typeof t === 'string' && t.trim() !== '');
  const base = { direcao: 'saida' as const, autor: sent.autor ?? 'sistema', autor_nome: sent.autor_nome || null };
  const stamp = (r: SendResult | undefined) => ({
    provider_message_id: str(r?.messageid),
    status: str(r?.messageid) ? ('enviada' as const) : null,
    at: str(r?.at),
  });
  if (output.sent_as === 'template') {
    return [
      {
        ...base,
        autor: 'sistema',
        tipo: 'modelo',
        conteudo: typeof output.text === 'string' ? output.text : '',
        chave: `${sent.chave}:0`,
        ...stamp(results.at(-1)),
      },
    ];
  }
  return results
    .slice(0, texts.length)
    .map((r, i) => ({ ...base, tipo: 'texto', conteudo: texts[i]!, chave: `${sent.chave}:${i}`, ...stamp(r) }));
}
