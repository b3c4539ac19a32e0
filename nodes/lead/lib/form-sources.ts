// Reading the three shapes a form submission arrives in (CONTRACT.md §4): the generic body, a
// Typeform webhook and a Tally webhook. Each reader gives the raw fields, untidied; form-normalize.ts
// tidies them the same way whatever the source.

/** Which shape a body has: Typeform has `form_response`, Tally has `data.fields`, anything else is generic. */
export type FormSource = 'typeform' | 'tally' | 'generic';

/** Where the four known fields are in a provider's payload (Typeform field refs, Tally labels). */
export interface FieldNames {
  nome: string;
  telefone: string;
  orcamento: string;
  /** Typeform: the hidden field's name; Tally: the label of the (hidden) field. */
  clinica_id: string;
}

/** The fields as the source gave them; `undefined` when the source has no such field. */
export interface RawForm {
  nome?: unknown;
  telefone?: unknown;
  orcamento?: unknown;
  clinica_id?: unknown;
  respostas?: unknown;
}

type Obj = Record<string, unknown>;

const isObject = (value: unknown): value is Obj => typeof value === 'object' && value !== null && !Array.isArray(value);
const has = (value: unknown, key: string): boolean => isObject(value) && Object.hasOwn(value, key);
/** A list as JSONata's `[]` makes it: an array as is, a single value as a list of one, nothing as none. */
const asList = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const memberOf = (value: unknown, key: string): unknown => (isObject(value) ? value[key] : undefined);

/**
 * Which source `body` comes from: `typeform` with `form_response`, `tally` with `data.fields` (or a
 * list of such), `generic` otherwise.
 */
export function formSourceOf(body: unknown): FormSource {
  if (has(body, 'form_response')) return 'typeform';
  const data = memberOf(body, 'data');
  if (has(data, 'fields') || (Array.isArray(data) && data.some((d) => has(d, 'fields')))) return 'tally';
  return 'generic';
}

/** The generic body: its own field names, nothing to map. */
export function readGeneric(body: unknown): RawForm {
  const b = isObject(body) ? body : {};
  return { nome: b.nome, telefone: b.telefone, orcamento: b.orcamento, clinica_id: b.clinica_id, respostas: b.respostas };
}

/**
 * A Typeform answer's value: a choice's label (or the `other` text typed instead), a multiple choice's
 * labels (a list), otherwise the member named by the answer's type (`text`, `email`, `phone_number`,
 * `boolean`, `number`, `date`, `url` …).
 */
function typeformValue(answer: unknown): unknown {
  const type = memberOf(answer, 'type');
  if (type === 'choice') {
    const choice = memberOf(answer, 'choice');
    return has(choice, 'label') ? memberOf(choice, 'label') : memberOf(choice, 'other');
  }
  if (type === 'choices') return memberOf(memberOf(answer, 'choices'), 'labels');
  return typeof type === 'string' ? memberOf(answer, type) : undefined;
}

/**
 * Typeform: answers by field ref; the clinic from the hidden field `names.clinica_id`. Every other
 * answer goes into respostas under its field ref (its field id when it has no ref), then every other
 * hidden field; a later key wins over an earlier one.
 */
export function readTypeform(body: unknown, names: FieldNames): RawForm {
  const response = memberOf(body, 'form_response');
  const answers = asList(memberOf(response, 'answers'));
  const refOf = (answer: unknown) => memberOf(memberOf(answer, 'field'), 'ref');
  const byRef = (ref: string) => {
    const answer = answers.find((a) => refOf(a) === ref);
    return answer === undefined ? null : typeformValue(answer);
  };
  const known = new Set([names.nome, names.telefone, names.orcamento]);
  const respostas: Obj = {};
  for (const answer of answers) {
    const ref = refOf(answer);
    if (typeof ref === 'string' && known.has(ref)) continue;
    const key = ref ? ref : memberOf(memberOf(answer, 'field'), 'id');
    const value = typeformValue(answer);
    if (key !== undefined && key !== null && value !== undefined) respostas[String(key)] = value;
  }
  const hidden = memberOf(response, 'hidden');
  if (isObject(hidden)) for (const [key, value] of Object.entries(hidden)) if (key !== names.clinica_id) respostas[key] = value;
  return {
    nome: byRef(names.nome),
    telefone: byRef(names.telefone),
    orcamento: byRef(names.orcamento),
    clinica_id: memberOf(hidden, names.clinica_id),
    respostas,
  };
}

/**
 * A Tally field's value. With `options` (dropdown, multiple choice, checkboxes), each chosen option id
 * becomes the option's text (an id without an option stays as it is); one choice gives a text, several
 * a list. Without options, the value as Tally sent it.
 */
function tallyValue(field: unknown): unknown {
  if (!has(field, 'options')) return memberOf(field, 'value');
  const options = asList(memberOf(field, 'options'));
  const texts = asList(memberOf(field, 'value')).map((id) => {
    const text = memberOf(
      options.find((o) => memberOf(o, 'id') === id && memberOf(o, 'text') !== undefined),
      'text',
    );
    return text === undefined ? id : text;
  });
  return texts.length === 1 ? texts[0] : texts;
}

/**
 * Tally: fields by label, the clinic included (Tally sends hidden fields as fields). Every other field
 * goes into respostas under its label (its key when it has no label); a later key wins.
 */
export function readTally(body: unknown, names: FieldNames): RawForm {
  const data = memberOf(body, 'data');
  const fields = (Array.isArray(data) ? data : [data]).flatMap((d) => asList(memberOf(d, 'fields')));
  const byLabel = (label: string) => {
    const field = fields.find((f) => memberOf(f, 'label') === label);
    return field === undefined ? null : tallyValue(field);
  };
  const known = new Set([names.nome, names.telefone, names.orcamento, names.clinica_id]);
  const respostas: Obj = {};
  for (const field of fields) {
    const label = memberOf(field, 'label');
    if (typeof label === 'string' && known.has(label)) continue;
    const key = label ? label : memberOf(field, 'key');
    const value = tallyValue(field);
    if (key !== undefined && key !== null && value !== undefined) respostas[String(key)] = value;
  }
  return {
    nome: byLabel(names.nome),
    telefone: byLabel(names.telefone),
    orcamento: byLabel(names.orcamento),
    clinica_id: byLabel(names.clinica_id),
    respostas,
  };
}
