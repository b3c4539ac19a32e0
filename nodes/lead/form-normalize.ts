import { Type } from '../../engine/typebox.js';
import { defineNode, type JsonValue } from '../../engine/types.js';
import { type FieldNames, formSourceOf, type RawForm, readGeneric, readTally, readTypeform } from './lib/form-sources.js';

/** The organised form, the same whatever the source (CONTRACT.md §4). */
export interface NormalizedForm {
  /** Trimmed, inner runs of spaces made one; '' when missing. */
  nome: string;
  /** As sent (a number becomes its digits); '' when missing. */
  telefone: string;
  /** Trimmed; several choices joined with ', '; '' when missing. */
  orcamento: string;
  /** A positive whole number, or null when the form gave none usable. */
  clinica_id: number | null;
  /** Every other answer; {} when none. */
  respostas: Record<string, unknown>;
  source: 'typeform' | 'tally' | 'generic';
}

/** Whitespace as JSONata's $trim sees it: runs of space, tab, CR and LF become one space, ends cut. */
export function squashSpaces(text: string): string {
  return text
    .replace(/[ \t\n\r]+/g, ' ')
    .replace(/^ /, '')
    .replace(/ $/, '');
}

/** Any value as text: a string as is, anything else as JSON (numbers with at most 15 significant digits). */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, (_key, v) => (typeof v === 'number' ? Number(v.toPrecision(15)) : v)) ?? '';
}

const CLINIC_ID = /^\s*[0-9]+\s*$/;

/** Tidies the raw fields of any source into the organised form. */
export function tidyForm(raw: RawForm, source: NormalizedForm['source']): NormalizedForm {
  const { nome, telefone, orcamento, clinica_id, respostas } = raw;
  const clinic = clinica_id === undefined ? '' : asText(clinica_id);
  return {
    nome: typeof nome === 'string' ? squashSpaces(nome) : '',
    telefone: telefone === undefined || telefone === null ? '' : asText(telefone),
    orcamento:
      typeof orcamento === 'string'
        ? squashSpaces(orcamento)
        : Array.isArray(orcamento)
          ? orcamento.filter((o) => typeof o === 'string').join(', ')
          : '',
    clinica_id: CLINIC_ID.test(clinic) ? Number(clinic.trim()) : null,
    respostas:
      typeof respostas === 'object' && respostas !== null && !Array.isArray(respostas) ? (respostas as Record<string, unknown>) : {},
    source,
  };
}

/** The first word of the tidied name, '' without a name. */
export const firstNameOf = (nome: string): string => nome.split(' ')[0] ?? '';

const fieldNames = (description: string, what: string, defaults: FieldNames, clinicWhat: string) =>
  Type.Object(
    {
      nome: Type.String({ minLength: 1, description: `The name's ${what}.` }),
      telefone: Type.String({ minLength: 1, description: `The phone's ${what}.` }),
      orcamento: Type.String({ minLength: 1, description: `The budget band's ${what}.` }),
      clinica_id: Type.String({ minLength: 1, description: `The clinic id's ${clinicWhat}.` }),
    },
    { additionalProperties: false, description, default: defaults, examples: [defaults] },
  );

/**
 * `form.normalize`: organises a form submission from any of its three sources (the generic body, a
 * Typeform or a Tally webhook; lib/form-sources.ts) into one NormalizedForm, tidied the same way
 * (tidyForm). Outputs `{form, first_name}` (`first_name` "" without a name). Read-only.
 */
export default defineNode({
  type: 'form.normalize',
  readOnly: true,
  description:
    'Organises a form submission, whatever sent it: the generic body ({nome, telefone, orcamento, clinica_id, respostas}), a Typeform webhook (answers found by field ref, the clinic by hidden field) or a Tally webhook (fields found by label; choice option ids become their text). Every other answer (and every other hidden field) goes into `respostas`. The result is tidied the same way: texts trimmed, several choices joined with ", ", `clinica_id` a number only when it is one.',
  params: Type.Object(
    {
      body: Type.Unknown({ description: 'The webhook body as the form provider sent it.', examples: ['{{ trigger.body }}'] }),
      typeform: fieldNames(
        'Where a Typeform webhook has the four known fields: field refs, and the hidden field of the clinic.',
        'field ref in Typeform',
        { nome: 'nome', telefone: 'telefone', orcamento: 'orcamento', clinica_id: 'clinica_id' },
        'hidden field name in Typeform',
      ),
      tally: fieldNames(
        'Where a Tally webhook has the four known fields: field labels (Tally sends hidden fields as labelled fields).',
        'field label in Tally',
        { nome: 'Nome', telefone: 'Telefone', orcamento: 'Orçamento', clinica_id: 'clinica_id' },
        'field label in Tally (a hidden field)',
      ),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      '`{form: {nome, telefone, orcamento, clinica_id, respostas, source}, first_name}`: `source` is typeform, tally or generic; `clinica_id` a number or null; `first_name` the first word of `nome` ("" without a name).',
  },
  examples: [
    {
      title: 'Organise a form from any of the three sources',
      step: {
        id: 'fields',
        type: 'form.normalize',
        params: {
          body: '{{ trigger.body }}',
          typeform: { nome: 'nome', telefone: 'telefone', orcamento: 'orcamento', clinica_id: 'clinica_id' },
          tally: { nome: 'Nome', telefone: 'Telefone', orcamento: 'Orçamento', clinica_id: 'clinica_id' },
        },
      },
    },
    {
      title: 'Generic bodies and the default field names',
      step: { id: 'fields', type: 'form.normalize', params: { body: '{{ trigger.body }}' } },
    },
  ],
  async run(params) {
    const source = formSourceOf(params.body);
    const raw =
      source === 'typeform'
        ? readTypeform(params.body, params.typeform)
        : source === 'tally'
          ? readTally(params.body, params.tally)
          : readGeneric(params.body);
    const form = tidyForm(raw, source);
    return { form: form as unknown as JsonValue, first_name: firstNameOf(form.nome) };
  },
});
