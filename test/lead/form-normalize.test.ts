// form.normalize: the three shapes of a form submission (CONTRACT.md §4) organised the same way.
// Payloads from flows/samples and /work/shared/reference/gateway-and-forms.md §3.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import formNormalize from '../../nodes/lead/form-normalize.js';

const sample = (name: string) => JSON.parse(readFileSync(join(import.meta.dirname, '../../flows/samples', name), 'utf8'));
const TYPEFORM = { nome: 'nome', telefone: 'telefone', orcamento: 'orcamento', clinica_id: 'clinica_id' };
const TALLY = { nome: 'Nome', telefone: 'Telefone', orcamento: 'Orçamento', clinica_id: 'clinica_id' };
const normalize = (body: unknown, names: { typeform?: typeof TYPEFORM; tally?: typeof TALLY } = {}) =>
  formNormalize.run({ body, typeform: names.typeform ?? TYPEFORM, tally: names.tally ?? TALLY } as never, {} as never) as Promise<{
    form: Record<string, unknown>;
    first_name: string;
  }>;

const typeform = (answers: unknown[], hidden: unknown = { clinica_id: '1' }) => ({
  event_type: 'form_response',
  form_response: { hidden, answers },
});
const tally = (fields: unknown[]) => ({ eventType: 'FORM_RESPONSE', data: { fields } });

describe('form.normalize: generic body', () => {
  it('trims the name and budget, keeps the phone as sent, reads a numeric-string clinica_id', async () => {
    const out = await normalize({
      nome: '  Maria \t Souza ',
      telefone: '(43) 99980-6366',
      orcamento: ' Até  R$ 3.000 ',
      clinica_id: ' 12 ',
      respostas: { email: 'm@x' },
    });
    expect(out).toEqual({
      form: {
        nome: 'Maria Souza',
        telefone: '(43) 99980-6366',
        orcamento: 'Até R$ 3.000',
        clinica_id: 12,
        respostas: { email: 'm@x' },
        source: 'generic',
      },
      first_name: 'Maria',
    });
  });

  it('a number phone becomes its digits; missing or unusable fields become "", null and {}', async () => {
    expect((await normalize({ nome: 5, telefone: 5543999806366, clinica_id: 'x1', respostas: [1] })).form).toEqual({
      nome: '',
      telefone: '5543999806366',
      orcamento: '',
      clinica_id: null,
      respostas: {},
      source: 'generic',
    });
    expect((await normalize({ nome: 'Ana', telefone: null, clinica_id: 3.5 })).form).toMatchObject({ telefone: '', clinica_id: null });
    expect((await normalize({ nome: 'Ana', clinica_id: 7 })).form).toMatchObject({ clinica_id: 7 });
    expect((await normalize({ nome: '   ' })).first_name).toBe('');
  });

  it('several budget choices are joined with ", "', async () => {
    expect((await normalize({ nome: 'A', orcamento: ['R$ 5 mil', 'R$ 10 mil'] })).form.orcamento).toBe('R$ 5 mil, R$ 10 mil');
  });
});

describe('form.normalize: Typeform (answers by field ref, the clinic by hidden field)', () => {
  it('maps the sample payload: choice label, multiple choices as a list, other answers and hidden fields in respostas', async () => {
    expect(await normalize(sample('intake-typeform.json'))).toEqual({
      form: {
        nome: 'Joana Lima',
        telefone: '+5511988887777',
        orcamento: 'Acima de R$ 10.000',
        clinica_id: 1,
        respostas: { email: 'joana@example.com', interesses: ['Lentes', 'Clareamento'], aceita_contato: true, utm_source: 'meta' },
        source: 'typeform',
      },
      first_name: 'Joana',
    });
  });

  it('a choice typed as `other`, an answer without ref keyed by field id, hidden fields winning over answers', async () => {
    const out = await normalize(
      typeform(
        [
          { type: 'text', text: ' Zé ', field: { id: 'F0', ref: 'nome' } },
          { type: 'choice', choice: { other: 'Uns 8 mil' }, field: { id: 'F1', ref: 'orcamento' } },
          { type: 'number', number: 3, field: { id: 'F2' } },
          { type: 'text', text: 'answer', field: { id: 'F3', ref: 'origem' } },
          { type: 'text', field: { id: 'F4', ref: 'sem_valor' } },
        ],
        { clinica_id: 4, origem: 'hidden' },
      ),
    );
    expect(out.form).toEqual({
      nome: 'Zé',
      telefone: '',
      orcamento: 'Uns 8 mil',
      clinica_id: 4,
      respostas: { F2: 3, origem: 'hidden' },
      source: 'typeform',
    });
  });

  it('multiple choices on the budget are joined; the first answer of a ref wins', async () => {
    const out = await normalize(
      typeform([
        { type: 'choices', choices: { labels: ['R$ 5 mil', 'R$ 10 mil'] }, field: { ref: 'orcamento' } },
        { type: 'text', text: 'First', field: { ref: 'nome' } },
        { type: 'text', text: 'Second', field: { ref: 'nome' } },
      ]),
    );
    expect(out.form).toMatchObject({ nome: 'First', orcamento: 'R$ 5 mil, R$ 10 mil', respostas: {} });
  });

  it('without hidden fields there is no clinic; refs are configurable', async () => {
    const body = typeform([{ type: 'text', text: 'Ana', field: { ref: 'name' } }], null);
    const out = await normalize(body, { typeform: { ...TYPEFORM, nome: 'name' } });
    expect(out.form).toMatchObject({ nome: 'Ana', clinica_id: null, respostas: {} });
    expect((await normalize(typeform([], { clinic: '9' }), { typeform: { ...TYPEFORM, clinica_id: 'clinic' } })).form.clinica_id).toBe(9);
  });
});

describe('form.normalize: Tally (fields by label, option ids turned into text)', () => {
  it('maps the sample payload: dropdown option id to its text, hidden fields by label in respostas', async () => {
    expect(await normalize(sample('intake-tally.json'))).toEqual({
      form: {
        nome: 'Carla Dias',
        telefone: '+55 21 97777-6666',
        orcamento: 'R$ 5–10 mil',
        clinica_id: 1,
        respostas: { 'E-mail': 'carla@example.com', utm_source: 'meta' },
        source: 'tally',
      },
      first_name: 'Carla',
    });
  });

  it('several options as a list of texts, an unknown option id kept, a field without label keyed by its key', async () => {
    const out = await normalize(
      tally([
        { key: 'q1', label: 'Nome', value: 'Lu' },
        {
          key: 'q2',
          label: 'Interesses',
          value: ['o1', 'o2'],
          options: [
            { id: 'o1', text: 'Lentes' },
            { id: 'o2', text: 'Clareamento' },
          ],
        },
        { key: 'q3', label: 'Check', value: ['zz'], options: [{ id: 'o1', text: 'A' }] },
        { key: 'q4', value: 'no label' },
        { key: 'q5', label: 'Sem valor' },
        { key: 'q6', label: 'Lista', value: ['p', 'q'] },
        { key: 'h1', label: 'clinica_id', value: 8 },
      ]),
    );
    expect(out.form).toEqual({
      nome: 'Lu',
      telefone: '',
      orcamento: '',
      clinica_id: 8,
      respostas: { Interesses: ['Lentes', 'Clareamento'], Check: 'zz', q4: 'no label', Lista: ['p', 'q'] },
      source: 'tally',
    });
  });

  it('labels are configurable', async () => {
    const out = await normalize(
      tally([
        { key: 'a', label: 'Name', value: 'Rui' },
        { key: 'b', label: 'Clinic', value: '2' },
      ]),
      {
        tally: { ...TALLY, nome: 'Name', clinica_id: 'Clinic' },
      },
    );
    expect(out.form).toMatchObject({ nome: 'Rui', clinica_id: 2, respostas: {} });
  });
});

describe('form.normalize: the reference payloads (gateway-and-forms.md §3), phone field named otherwise', () => {
  it('Typeform: the phone under ref `whatsapp`; a partial response with `answers: null` has no answers', async () => {
    const body = {
      event_type: 'form_response',
      form_response: {
        hidden: { utm_source: 'meta', lead_id: 'L-123', clinica_id: '3' },
        calculated: { score: 7 },
        answers: [
          { type: 'text', text: 'Maria Souza', field: { id: 'Fa1', type: 'short_text', ref: 'nome' } },
          { type: 'phone_number', phone_number: '+5543999806366', field: { id: 'Fb2', type: 'phone_number', ref: 'whatsapp' } },
          { type: 'choice', choice: { label: 'R$ 5–10 mil' }, field: { id: 'Fd4', type: 'multiple_choice', ref: 'orcamento' } },
          { type: 'choices', choices: { labels: ['A', 'B'] }, field: { id: 'Fe5', type: 'multiple_choice', ref: 'interesses' } },
        ],
      },
    };
    const out = await normalize(body, { typeform: { ...TYPEFORM, telefone: 'whatsapp' } });
    expect(out.form).toEqual({
      nome: 'Maria Souza',
      telefone: '+5543999806366',
      orcamento: 'R$ 5–10 mil',
      clinica_id: 3,
      respostas: { interesses: ['A', 'B'], utm_source: 'meta', lead_id: 'L-123' },
      source: 'typeform',
    });
    const partial = await normalize({ event_type: 'form_response_partial', form_response: { hidden: { clinica_id: '3' }, answers: null } });
    expect(partial.form).toMatchObject({ nome: '', telefone: '', clinica_id: 3, respostas: {} });
  });

  it('Tally: the phone under label `WhatsApp`', async () => {
    const out = await normalize(
      tally([
        { key: 'question_3EKz4n', label: 'Nome', type: 'INPUT_TEXT', value: 'Maria Souza' },
        { key: 'question_3jZaa3', label: 'WhatsApp', type: 'INPUT_PHONE_NUMBER', value: '+5543999806366' },
        {
          key: 'question_Apj74k',
          label: 'Orçamento',
          type: 'DROPDOWN',
          value: ['a69a8f0e'],
          options: [{ id: 'a69a8f0e', text: 'R$ 5–10 mil' }],
        },
        { key: 'h2', label: 'utm_source', type: 'HIDDEN_FIELDS', value: 'meta' },
      ]),
      { tally: { ...TALLY, telefone: 'WhatsApp' } },
    );
    expect(out.form).toEqual({
      nome: 'Maria Souza',
      telefone: '+5543999806366',
      orcamento: 'R$ 5–10 mil',
      clinica_id: null,
      respostas: { utm_source: 'meta' },
      source: 'tally',
    });
  });
});
