// The shape of seed data (CONTRACT.md §1 `leadflow seed`), checked with ajv plus the rules JSON
// Schema cannot say (phones as digits, names unique within their scope, business hours readable by
// adapters/hours/business-hours.ts, a calendar readable by adapters/calendar/agenda-config.ts (see
// seed-agenda.ts), each instance's provider rules of CONTRACT.md §11 and its templates' shape,
// adapters/gateway/templates.ts), and its normal form.
import AjvModule from 'ajv';
import type { TemplateSet } from '../gateway/gateway-client.js';
import { GATEWAY_PROVIDERS, isGatewayProvider, type GatewayProvider } from '../gateway/providers.js';
import { formatTemplateSet, templateSetProblems } from '../gateway/templates.js';
import { BusinessHoursError, formatBusinessHours, parseBusinessHours } from '../hours/business-hours.js';
import { agendaProblems, normalAgenda } from './seed-agenda.js';
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
          // CONTRACT.md §12: the calendar (or its JSON text); null: none. Checked by adapters/calendar/agenda-config.ts.
          agenda: { type: ['object', 'string', 'null'] },
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
              properties: {
                nome: name,
                server_url: { type: 'string', pattern: '^https?://' },
                token: { type: 'string', minLength: 1 },
                // CONTRACT.md §11; the rules per provider are in instanceProblems.
                provider: { type: 'string' },
                external_id: optionalText,
                app_secret: optionalText,
                verify_token: optionalText,
                // {primeiro_contato, alerta_hunter, follow_up, lembrete_consulta} (or its JSON text); adapters/gateway/templates.ts.
                templates: { type: ['object', 'string', 'null'] },
              },
            },
          },
        },
      },
    },
  },
} as const;

const validate = new Ajv({ allErrors: true, strict: false }).compile(SCHEMA);

/** A clinic's protocol in a seed file, as normalizeSeed gives it; matched by name within the clinic. */
export interface SeedProtocol {
  nome: string;
  descricao?: string | null;
  preco?: string | null;
}
/**
 * A clinic's WhatsApp instance in a seed file, as normalizeSeed gives it (defaults filled); matched by
 * name within the clinic. Holds credentials: never log it.
 */
export interface SeedInstance {
  nome: string;
  server_url: string;
  token: string;
  /** Absent in the file: `uazapi`. */
  provider: GatewayProvider;
  /** The optional columns are written as given; absent in the file: null. */
  external_id: string | null;
  app_secret: string | null;
  verify_token: string | null;
  /** JSON text in its normal form (formatTemplateSet), or null. */
  templates: string | null;
}
/** A clinic in a seed file, as normalizeSeed gives it, with its protocols and instances; matched by name. */
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
  /**
   * The calendar as JSON text in its normal form (formatAgenda; null: none); absent: left as stored
   * (new clinics: null). Holds credentials: never log it.
   */
  agenda?: string | null;
  protocolos: SeedProtocol[];
  instancias: SeedInstance[];
}
/** A whole seed file, as normalizeSeed gives it. */
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
    problems.push(...agendaProblems(c.agenda, c.nome, [...at, 'agenda']));
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
        if (kind === 'instancias' && item && typeof item === 'object') {
          checkUrl((item as Raw).server_url, [...at, kind, j, 'server_url'], problems);
          problems.push(...instanceProblems(item as Raw, c.nome, [...at, kind, j]));
        }
      });
    }
  });
  problems.push(...externalIdDuplicates(clinics));
  return problems;
}

/** ` (clinic "A", instance "B")`, naming what is named. */
export function whoseInstance(clinic: unknown, instance: unknown): string {
  const named = (v: unknown) => typeof v === 'string' && v.trim() !== '';
  const parts = [named(clinic) ? `clinic "${String(clinic).trim()}"` : '', named(instance) ? `instance "${String(instance).trim()}"` : ''];
  const text = parts.filter(Boolean).join(', ');
  return text ? ` (${text})` : '';
}

const present = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';

/**
 * The provider rules of one instance (CONTRACT.md §11): a known provider; `external_id` for
 * Evolution (its instance name) and Cloud (the phone number id); `app_secret` for Cloud (it signs
 * the webhooks); templates only for Cloud, in their shape. Each message names the clinic and instance.
 */
function instanceProblems(n: Raw, clinic: unknown, at: Array<string | number>): SeedProblem[] {
  const problems: SeedProblem[] = [];
  const whose = whoseInstance(clinic, n.nome);
  const provider = n.provider === undefined ? 'uazapi' : n.provider;
  if (typeof provider !== 'string') return problems;
  if (!isGatewayProvider(provider)) {
    problems.push({ path: [...at, 'provider'], message: `"${provider}" is not a provider (${GATEWAY_PROVIDERS.join(', ')})${whose}` });
    return problems;
  }
  if ((provider === 'evolution' || provider === 'cloud') && !present(n.external_id))
    problems.push({
      path: [...at, 'external_id'],
      message: `is required for ${provider} (${provider === 'cloud' ? 'the phone number id' : "Evolution's instance name"})${whose}`,
    });
  if (provider === 'cloud' && !present(n.app_secret))
    problems.push({ path: [...at, 'app_secret'], message: `is required for cloud (the app secret that signs its webhooks)${whose}` });
  if (n.templates === undefined || n.templates === null) return problems;
  if (provider !== 'cloud') {
    problems.push({ path: [...at, 'templates'], message: `only cloud instances send templates (this one is ${provider})${whose}` });
    return problems;
  }
  let set: unknown = n.templates;
  if (typeof set === 'string') {
    try {
      set = JSON.parse(set);
    } catch {
      problems.push({ path: [...at, 'templates'], message: `is not JSON${whose}` });
      return problems;
    }
  }
  const keyed = typeof n.templates === 'object';
  for (const p of templateSetProblems(set))
    problems.push({
      path: keyed ? [...at, 'templates', ...p.path] : [...at, 'templates'],
      message: `${!keyed && p.path.length > 0 ? `${p.path.join('.')}: ` : ''}${p.message}${whose}`,
    });
  return problems;
}

/** Two instances of the file naming the same provider and external_id (an event must find one instance). */
function externalIdDuplicates(clinics: unknown[]): SeedProblem[] {
  const problems: SeedProblem[] = [];
  const seen = new Map<string, { i: number; j: number }>();
  clinics.forEach((clinic, i) => {
    const list = (clinic as Raw | null)?.instancias;
    if (!Array.isArray(list)) return;
    list.forEach((item: unknown, j) => {
      const n = (item ?? {}) as Raw;
      if (!present(n.external_id)) return;
      const provider = typeof n.provider === 'string' ? n.provider : 'uazapi';
      const key = `${provider}\u0000${String(n.external_id).trim()}`;
      const first = seen.get(key);
      if (!first) {
        seen.set(key, { i, j });
        return;
      }
      problems.push({
        path: ['clinicas', i, 'instancias', j, 'external_id'],
        message: `${provider} external_id "${String(n.external_id).trim()}" appears twice (also clinicas[${first.i}].instancias[${first.j}])${whoseInstance((clinic as Raw).nome, n.nome)}`,
      });
    });
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

/** A valid template set (object or JSON text) as stored: its normal JSON text; null when none. */
function normalTemplates(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return formatTemplateSet((typeof value === 'string' ? JSON.parse(value) : value) as TemplateSet);
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
          provider: (typeof n.provider === 'string' ? n.provider : 'uazapi') as GatewayProvider,
          external_id: present(n.external_id) ? String(n.external_id).trim() : null,
          app_secret: present(n.app_secret) ? String(n.app_secret) : null,
          verify_token: present(n.verify_token) ? String(n.verify_token) : null,
          templates: normalTemplates(n.templates),
        })),
      };
      for (const key of ['endereco', 'posicionamento', 'hunter_nome'] as const)
        if (key in c) clinic[key] = (c[key] as string | null) ?? null;
      if (Array.isArray(c.admin_telefones)) clinic.admin_telefones = c.admin_telefones.map(String).join(',');
      else if (typeof c.admin_telefones === 'string') clinic.admin_telefones = splitPhones(c.admin_telefones).join(',');
      else if (c.admin_telefones === null) clinic.admin_telefones = '';
      if ('agenda' in c) clinic.agenda = normalAgenda(c.agenda);
      if ('horario_atendimento' in c) {
        const hours = parseBusinessHours(c.horario_atendimento);
        clinic.horario_atendimento = hours ? formatBusinessHours(hours) : null;
      }
      return clinic;
    }),
  };
}
