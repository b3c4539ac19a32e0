// A clinic's calendar configuration (CONTRACT.md §12, `clinicas_com_atendentes.agenda`): parsed,
// validated and put in its normal form.
//
// Contract:
//   - The value is JSON, as text or as an object:
//       {"provider": "interno", "duracao_min": 60, "intervalo_min": 30, "antecedencia_min": 120,
//        "dias": 14, "vagas": 1, "horario": null,
//        "google": {"calendar_id", "service_account": {…key JSON…}, "base_url", "token_url"},
//        "calcom": {"api_key", "event_type_id", "base_url"}}
//     null, undefined, '' and the JSON text `null` mean no calendar (the agent books nothing).
//   - Defaults: provider `interno`, duracao_min 60, intervalo_min 30, antecedencia_min 120, dias 14,
//     vagas 1, horario null (the clinic's `horario_atendimento`; a clinic with neither offers no
//     slots). Bounds: duracao_min and intervalo_min 5..1440, antecedencia_min 0..43200 (30 days),
//     dias 1..90, vagas 1..100, all integers.
//   - `google` is required for provider google: `calendar_id` (text), `service_account` (the key file
//     as an object or its JSON text: `client_email` and a PEM `private_key` node:crypto can read;
//     `private_key_id` kept when given, the rest dropped), `base_url` (default
//     https://www.googleapis.com/calendar/v3), `token_url` (default https://oauth2.googleapis.com/token).
//     `calcom` is required for provider calcom: `api_key` (text), `event_type_id` (a positive
//     integer, or its digits as text), `base_url` (default https://api.cal.com/v2). A block for
//     another provider is checked the same way and kept. URLs are http(s); a trailing `/` is dropped.
//   - Anything else malformed throws AgendaConfigError listing every problem, each at its field's path.
//     No message ever holds a credential's value (api_key, private_key, the key file), nor a JSON
//     parser's message (it quotes the text it read).
import { createPrivateKey } from 'node:crypto';
import { BusinessHoursError, formatBusinessHours, parseBusinessHours, type BusinessHours } from '../hours/business-hours.js';

/** The calendar providers a clinic may choose (CONTRACT.md §12). */
export const CALENDAR_PROVIDERS = ['interno', 'google', 'calcom'] as const;
/** A calendar provider's name. */
export type CalendarProviderName = (typeof CALENDAR_PROVIDERS)[number];

/** Google Calendar API v3's default address. */
export const GOOGLE_BASE_URL = 'https://www.googleapis.com/calendar/v3';
/** Google's OAuth 2.0 token endpoint (the service account's JWT is exchanged there). */
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
/** Cal.com API v2's default address. */
export const CALCOM_BASE_URL = 'https://api.cal.com/v2';

/** The parts of a Google service account key file LeadFlow keeps. Credentials: never log them. */
export interface GoogleServiceAccount {
  client_email: string;
  /** PEM (`-----BEGIN PRIVATE KEY-----…`). */
  private_key: string;
  /** The key's id (the JWT header's `kid`), when the file gives it. */
  private_key_id?: string;
}

/** The `google` block: which calendar, the service account that may write it, and where the API is. */
export interface GoogleAgenda {
  calendar_id: string;
  service_account: GoogleServiceAccount;
  base_url: string;
  token_url: string;
}

/** The `calcom` block: the API key (a credential), the event type booked, and where the API is. */
export interface CalcomAgenda {
  api_key: string;
  event_type_id: number;
  base_url: string;
}

/** A parsed `agenda` with its defaults filled. Holds credentials: never log, record or return it. */
export interface AgendaConfig {
  provider: CalendarProviderName;
  /** Length of an appointment, minutes. */
  duracao_min: number;
  /** Step between slot starts within an opening stretch, minutes. */
  intervalo_min: number;
  /** The earliest slot is at least this long after now, minutes. */
  antecedencia_min: number;
  /** The latest slot starts at most this many days after now. */
  dias: number;
  /** How many appointments may overlap one slot. */
  vagas: number;
  /** The calendar's own hours; null: the clinic's `horario_atendimento` (see agendaHours). */
  horario: BusinessHours | null;
  google: GoogleAgenda | null;
  calcom: CalcomAgenda | null;
}

/** One problem of an agenda: the path of the field it is about ([] for the whole value) and what. */
export interface AgendaProblem {
  path: string[];
  message: string;
}

/** An `agenda` value that cannot be used; `problems` lists every problem (never a credential's value). */
export class AgendaConfigError extends Error {
  override name = 'AgendaConfigError';
  readonly code = 'invalid-agenda';
  constructor(readonly problems: AgendaProblem[]) {
    super(`invalid agenda: ${problems.map((p) => (p.path.length > 0 ? `${p.path.join('.')}: ${p.message}` : p.message)).join('; ')}`);
  }
}

type Raw = Record<string, unknown>;

const TOP_KEYS = ['provider', 'duracao_min', 'intervalo_min', 'antecedencia_min', 'dias', 'vagas', 'horario', 'google', 'calcom'];
const GOOGLE_KEYS = ['calendar_id', 'service_account', 'base_url', 'token_url'];
const CALCOM_KEYS = ['api_key', 'event_type_id', 'base_url'];

/** The numeric fields: default and inclusive bounds. */
const NUMBERS = {
  duracao_min: { default: 60, min: 5, max: 1440 },
  intervalo_min: { default: 30, min: 5, max: 1440 },
  antecedencia_min: { default: 120, min: 0, max: 43_200 },
  dias: { default: 14, min: 1, max: 90 },
  vagas: { default: 1, min: 1, max: 100 },
} as const;
type NumberField = keyof typeof NUMBERS;

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
}

const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const present = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/** The object a value holds (itself, or its JSON text parsed); undefined after recording a problem. */
function objectOf(value: unknown, path: string[], what: string, problems: AgendaProblem[]): Raw | undefined {
  let data = value;
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data) as unknown;
    } catch {
      problems.push({ path, message: `is not JSON (${what})` });
      return undefined;
    }
  }
  if (isObject(data)) return data;
  problems.push({ path, message: `must be an object (${what})` });
  return undefined;
}

function unknownKeys(raw: Raw, known: string[], path: string[], problems: AgendaProblem[]): void {
  for (const key of Object.keys(raw))
    if (!known.includes(key)) problems.push({ path: [...path, key], message: `is not a known field (${known.join(', ')})` });
}

/** The clinic's agenda from the column value (JSON text or object); null when it has none. */
export function parseAgenda(value: unknown): AgendaConfig | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' && (value.trim() === '' || value.trim() === 'null')) return null;
  const problems: AgendaProblem[] = [];
  const raw = objectOf(value, [], 'like {"provider": "interno", "duracao_min": 60}', problems);
  if (!raw) throw new AgendaConfigError(problems);
  unknownKeys(raw, TOP_KEYS, [], problems);
  const provider = parseProvider(raw.provider, problems);
  const numbers = {} as Record<NumberField, number>;
  for (const field of Object.keys(NUMBERS) as NumberField[]) numbers[field] = parseNumber(field, raw[field], problems);
  const horario = parseHours(raw.horario, problems);
  const google = parseBlock(raw, 'google', provider, parseGoogle, problems);
  const calcom = parseBlock(raw, 'calcom', provider, parseCalcom, problems);
  if (problems.length > 0) throw new AgendaConfigError(problems);
  return { provider, ...numbers, horario, google, calcom };
}

function parseProvider(value: unknown, problems: AgendaProblem[]): CalendarProviderName {
  if (value === undefined || value === null) return 'interno';
  if (typeof value === 'string' && (CALENDAR_PROVIDERS as readonly string[]).includes(value.trim()))
    return value.trim() as CalendarProviderName;
  problems.push({ path: ['provider'], message: `must be one of ${CALENDAR_PROVIDERS.join(', ')}, got ${shown(value)}` });
  return 'interno';
}

function parseNumber(field: NumberField, value: unknown, problems: AgendaProblem[]): number {
  const spec = NUMBERS[field];
  if (value === undefined || value === null) return spec.default;
  if (typeof value === 'number' && Number.isInteger(value) && value >= spec.min && value <= spec.max) return value;
  problems.push({ path: [field], message: `must be an integer from ${spec.min} to ${spec.max}, got ${shown(value)}` });
  return spec.default;
}

function parseHours(value: unknown, problems: AgendaProblem[]): BusinessHours | null {
  try {
    return parseBusinessHours(value);
  } catch (err) {
    if (!(err instanceof BusinessHoursError)) throw err;
    for (const p of err.problems) problems.push({ path: p.key ? ['horario', p.key] : ['horario'], message: p.message });
    return null;
  }
}

/** A provider's block: required when it is the provider, checked whenever given. */
function parseBlock<T>(
  raw: Raw,
  key: 'google' | 'calcom',
  provider: CalendarProviderName,
  parse: (block: Raw, problems: AgendaProblem[]) => T,
  problems: AgendaProblem[],
): T | null {
  const value = raw[key];
  if (value === undefined || value === null) {
    if (provider === key)
      problems.push({
        path: [key],
        message: `is required when provider is ${key} (${(key === 'google' ? GOOGLE_KEYS : CALCOM_KEYS).join(', ')})`,
      });
    return null;
  }
  if (!isObject(value)) {
    problems.push({ path: [key], message: 'must be an object' });
    return null;
  }
  return parse(value, problems);
}

function requiredText(block: Raw, key: string, path: string[], problems: AgendaProblem[], secret = false): string {
  const value = block[key];
  if (present(value)) return value.trim();
  const message =
    value === undefined || value === null
      ? 'is required'
      : secret
        ? 'must be non-empty text'
        : `must be non-empty text, got ${shown(value)}`;
  problems.push({ path: [...path, key], message });
  return '';
}

function parseUrl(block: Raw, key: string, fallback: string, path: string[], problems: AgendaProblem[]): string {
  const value = block[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'string' && /^https?:\/\//.test(value.trim()) && URL.canParse(value.trim())) return value.trim().replace(/\/+$/, '');
  problems.push({ path: [...path, key], message: `must be an http:// or https:// URL, got ${shown(value)}` });
  return fallback;
}

function parseGoogle(block: Raw, problems: AgendaProblem[]): GoogleAgenda {
  unknownKeys(block, GOOGLE_KEYS, ['google'], problems);
  return {
    calendar_id: requiredText(block, 'calendar_id', ['google'], problems),
    service_account: parseServiceAccount(block.service_account, problems),
    base_url: parseUrl(block, 'base_url', GOOGLE_BASE_URL, ['google'], problems),
    token_url: parseUrl(block, 'token_url', GOOGLE_TOKEN_URL, ['google'], problems),
  };
}

/** The key file's client_email, private_key (readable by node:crypto) and private_key_id; its other fields are dropped. */
function parseServiceAccount(value: unknown, problems: AgendaProblem[]): GoogleServiceAccount {
  const path = ['google', 'service_account'];
  const empty = { client_email: '', private_key: '' };
  if (value === undefined || value === null) {
    problems.push({ path, message: "is required (the service account's JSON key file)" });
    return empty;
  }
  const key = objectOf(value, path, "the service account's JSON key file", problems);
  if (!key) return empty;
  if (key.type !== undefined && key.type !== 'service_account')
    problems.push({ path: [...path, 'type'], message: `must be "service_account" (a service account's key file), got ${shown(key.type)}` });
  const clientEmail = requiredText(key, 'client_email', path, problems);
  if (clientEmail && !clientEmail.includes('@'))
    problems.push({ path: [...path, 'client_email'], message: `must be an e-mail address, got ${shown(clientEmail)}` });
  const privateKey = requiredText(key, 'private_key', path, problems, true);
  if (privateKey && !readablePrivateKey(privateKey))
    problems.push({ path: [...path, 'private_key'], message: 'is not a PEM private key (copy it from the key file as it is)' });
  const out: GoogleServiceAccount = { client_email: clientEmail, private_key: privateKey };
  if (present(key.private_key_id)) out.private_key_id = key.private_key_id.trim();
  return out;
}

function readablePrivateKey(pem: string): boolean {
  try {
    createPrivateKey(pem);
    return true;
  } catch {
    return false;
  }
}

function parseCalcom(block: Raw, problems: AgendaProblem[]): CalcomAgenda {
  unknownKeys(block, CALCOM_KEYS, ['calcom'], problems);
  const apiKey = requiredText(block, 'api_key', ['calcom'], problems, true);
  let eventType = 0;
  const raw = block.event_type_id;
  if (typeof raw === 'number' && Number.isInteger(raw) && raw > 0) eventType = raw;
  else if (typeof raw === 'string' && /^\s*[1-9]\d{0,14}\s*$/.test(raw)) eventType = Number(raw.trim());
  else
    problems.push({
      path: ['calcom', 'event_type_id'],
      message:
        raw === undefined || raw === null ? 'is required (the event type id, a number)' : `must be a positive integer, got ${shown(raw)}`,
    });
  return { api_key: apiKey, event_type_id: eventType, base_url: parseUrl(block, 'base_url', CALCOM_BASE_URL, ['calcom'], problems) };
}

/** The agenda as JSON text in its normal form: every field, defaults filled, hours in their normal form. */
export function formatAgenda(config: AgendaConfig): string {
  const { horario, google, calcom, ...rest } = config;
  const out: Record<string, unknown> = { ...rest, horario: horario ? (JSON.parse(formatBusinessHours(horario)) as unknown) : null };
  if (google) out.google = google;
  if (calcom) out.calcom = calcom;
  return JSON.stringify(out);
}

/** The hours slots are cut from: the agenda's own, else the clinic's `horario_atendimento` (column value); null: none. */
export function agendaHours(config: AgendaConfig, horarioAtendimento: unknown): BusinessHours | null {
  return config.horario ?? parseBusinessHours(horarioAtendimento);
}
