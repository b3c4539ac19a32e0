// The shape of seed data (CONTRACT.md §1 `leadflow seed`), checked with ajv plus the rules JSON
// Schema cannot say (phones as digits, names unique within their scope, business hours readable by
// adapters/hours/business-hours.ts), and its normal form.
import AjvModule from 'ajv';
import { BusinessHoursError, formatBusinessHours, parseBusinessHours } from '../hours/business-hours.js';
import type { SeedProblem } from './seed-validation-error.js';

const Ajv = AjvModule.default ?? AjvModule;

/** Digits only, country code first: 10 to 15 digits (E.164 without the plus). */
const PHONE = /^[0-9]{10,15}$/;

const optionalText = { type: ['string', 'null'] };
const name = { type: 'string', minLength: 1, pattern: '\\S' };
const phone = { type: ['string', 'integer'] };

const SCHEMA = {
  type: 'object',
  required: ['clinicas'],
  additionalProperties: false,
  properties: {
    clinicas: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['nome', 'hunter_telefone'],
        additionalProperties: false,
        properties: {
          nome: name,
          endereco: optionalText,
          posicionamento: optionalText,
          hunter_nome: optionalText,
          hunter_telefone: phone,
          admin_telefones: { type: ['array', 'string', 'null'], items: phone },
          // CONTRACT.md §9: {timezone, seg, ter, qua, qui, sex, sab, dom} (or its JSON text); null: always open.
          horario_atendimento: { type: ['object', 'string', 'null'] },
          protocolos: {
            type: 'array',
            items: {
              type: 'object',
              required: ['nome'],
              additionalProperties: false,
              properties: { nome: name, descricao: optionalText, preco: { type: ['string', 'number', 'null'] } },
            },
          },
          instancias: {
            type: 'array',
            items: {
              type: 'object',
              required: ['nome', 'server_url', 'token'],
              additionalProperties: false,
              properties: { nome: name, server_url: { type: 'string', pattern: '^https?://' }, token: { type: 'string', minLength: 1 } },
            },
          },
        },
      },
    },
  },
} as const;

const validate = new Ajv({ allErrors: true, strict: false }).compile(SCHEMA);

export interface SeedProtocol {
  nome: string;
  descricao?: string | null;
  preco?: string | null;
}
export interface SeedInstance {
  nome: string;
  server_url: string;
  token: string;
}
export interface SeedClinic {
  nome: string;
  endereco?: string | null;
  posicionamento?: string | null;
  hunter_nome?: string | null;
  hunter_telefone: string;
  /** Comma-separated digits, possibly empty; absent: left as stored (new clinics: empty). */
  admin_telefones?: string;
  /** Business hours as JSON text in their normal form (null: always open); absent: left as stored (new clinics: null). */
  horario_atendimento?: string | null;
  protocolos: SeedProtocol[];
  instancias: SeedInstance[];
}
export interface SeedData {
  clinicas: SeedClinic[];
}

type Raw = Record<string, unknown>;

function ajvPath(instancePath: string): Array<string | number> {
  return instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** Every problem of `data` as seed data; empty when it is valid. Paths point into `data`. */
export function seedProblems(data: unknown): SeedProblem[] {
  const problems: SeedProblem[] = [];
  if (!validate(data)) {
    for (const e of validate.errors ?? []) {
      const path = ajvPath(e.instancePath);
      const params = e.params as { missingProperty?: string; additionalProperty?: string; type?: string | string[] };
      if (e.keyword === 'required') problems.push({ path: [...path, params.missingProperty!], message: 'is required' });
      else if (e.keyword === 'additionalProperties')
        problems.push({ path: [...path, params.additionalProperty!], message: 'is not a known field' });
      else if (e.keyword === 'type') problems.push({ path, message: `must be ${[params.type].flat().join(' or ')}` });
      else if (e.keyword === 'pattern' && path.at(-1) === 'server_url')
        problems.push({ path, message: 'must be an http:// or https:// URL' });
      else if (e.keyword === 'pattern' || e.keyword === 'minLength') problems.push({ path, message: 'must not be empty' });
      else problems.push({ path, message: e.message ?? 'is invalid' });
    }
  }
  const clinics = (data as Raw | null)?.clinicas;
  if (!Array.isArray(clinics)) return problems;
  const clinicNames = new Map<string, number>();
  clinics.forEach((clinic: unknown, i) => {
    if (!clinic || typeof clinic !== 'object') return;
    const c = clinic as Raw;
    const at = ['clinicas', i];
    duplicate(clinicNames, c.nome, i, [...at, 'nome'], 'clinic', 'clinicas', problems);
    checkPhone(c.hunter_telefone, [...at, 'hunter_telefone'], problems);
    if (Array.isArray(c.admin_telefones))
      for (const [j, p] of c.admin_telefones.entries()) checkPhone(p, [...at, 'admin_telefones', j], problems);
    else if (typeof c.admin_telefones === 'string') {
      const bad = splitPhones(c.admin_telefones).filter((p) => !PHONE.test(p));
      if (bad.length > 0)
        problems.push({
          path: [...at, 'admin_telefones'],
          message: `phones must be digits only, country code first (10 to 15 digits); not: ${bad.join(', ')}`,
        });
    }
    checkHours(c.horario_atendimento, c.nome, [...at, 'horario_atendimento'], problems);
    for (const kind of ['protocolos', 'instancias'] as const) {
      const list = c[kind];
      if (!Array.isArray(list)) continue;
      const names = new Map<string, number>();
      list.forEach((item: unknown, j) => {
        if (item && typeof item === 'object')
          duplicate(
            names,
            (item as Raw).nome,
            j,
            [...at, kind, j, 'nome'],
            kind === 'protocolos' ? 'protocol' : 'instance',
            `clinicas[${i}].${kind}`,
            problems,
          );
        if (kind === 'instancias' && item && typeof item === 'object')
          checkUrl((item as Raw).server_url, [...at, kind, j, 'server_url'], problems);
      });
    }
  });
  return problems;
}

function duplicate(
  seen: Map<string, number>,
  value: unknown,
  index: number,
  path: Array<string | number>,
  what: string,
  list: string,
  problems: SeedProblem[],
): void {
  if (typeof value !== 'string' || value.trim() === '') return;
  const key = value.trim();
  const first = seen.get(key);
  if (first === undefined) seen.set(key, index);
  else problems.push({ path, message: `${what} name "${key}" appears twice (also ${list}[${first}])` });
}

function checkPhone(value: unknown, path: Array<string | number>, problems: SeedProblem[]): void {
  if ((typeof value === 'string' || typeof value === 'number') && !PHONE.test(String(value))) {
    problems.push({
      path,
      message: `must be digits only, country code first (10 to 15 digits, e.g. 5511987654321), got "${String(value)}"`,
    });
  }
}

/** Each problem of a clinic's business hours, at the day or `timezone` it is about, naming the clinic. */
function checkHours(value: unknown, clinic: unknown, path: Array<string | number>, problems: SeedProblem[]): void {
  if (typeof value !== 'string' && (typeof value !== 'object' || value === null || Array.isArray(value))) return;
  try {
    parseBusinessHours(value);
  } catch (err) {
    if (!(err instanceof BusinessHoursError)) throw err;
    const whose = typeof clinic === 'string' && clinic.trim() !== '' ? ` (clinic "${clinic.trim()}")` : '';
    // A day or timezone of an object is pointed at; a problem of JSON text, at the text.
    const keyed = typeof value === 'object';
    for (const p of err.problems)
      problems.push({
        path: keyed && p.key ? [...path, p.key] : path,
        message: `${!keyed && p.key ? `${p.key}: ` : ''}${p.message}${whose}`,
      });
  }
}

function checkUrl(value: unknown, path: Array<string | number>, problems: SeedProblem[]): void {
  if (typeof value !== 'string' || !/^https?:\/\//.test(value)) return;
  try {
    new URL(value);
  } catch {
    problems.push({ path, message: 'must be an http:// or https:// URL' });
  }
}

function splitPhones(text: string): string[] {
  return text
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
}

/** The normal form of valid seed data: names trimmed, phones as digit strings, admin phones comma-separated. */
export function normalizeSeed(data: unknown): SeedData {
  const raw = data as { clinicas: Raw[] };
  return {
    clinicas: raw.clinicas.map((c) => {
      const clinic: SeedClinic = {
        nome: String(c.nome).trim(),
        hunter_telefone: String(c.hunter_telefone),
        protocolos: ((c.protocolos as Raw[] | undefined) ?? []).map((p) => ({
          nome: String(p.nome).trim(),
          ...('descricao' in p ? { descricao: (p.descricao as string | null) ?? null } : {}),
          ...('preco' in p ? { preco: p.preco === null || p.preco === undefined ? null : String(p.preco) } : {}),
        })),
        instancias: ((c.instancias as Raw[] | undefined) ?? []).map((n) => ({
          nome: String(n.nome).trim(),
          server_url: String(n.server_url),
          token: String(n.token),
        })),
      };
      for (const key of ['endereco', 'posicionamento', 'hunter_nome'] as const)
        if (key in c) clinic[key] = (c[key] as string | null) ?? null;
      if (Array.isArray(c.admin_telefones)) clinic.admin_telefones = c.admin_telefones.map(String).join(',');
      else if (typeof c.admin_telefones === 'string') clinic.admin_telefones = splitPhones(c.admin_telefones).join(',');
      else if (c.admin_telefones === null) clinic.admin_telefones = '';
      if ('horario_atendimento' in c) {
        const hours = parseBusinessHours(c.horario_atendimento);
        clinic.horario_atendimento = hours ? formatBusinessHours(hours) : null;
      }
      return clinic;
    }),
  };
}
