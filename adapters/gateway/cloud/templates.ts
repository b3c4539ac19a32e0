// The approved templates of a Cloud API instance (`instancias_whatsapp.templates`, CONTRACT §11):
// JSON naming one template per purpose, e.g.
//   {"primeiro_contato": {"name": "lead_boas_vindas", "language": "pt_BR", "body": "Olá {{1}}! Aqui é a {{2}}…"},
//    "alerta_hunter": {…}, "follow_up": {…}}
// `name` and `language` (the code it was approved in) are what Meta needs (reference §2.9). Optional:
// `parameter_names` for templates with named parameters (sent as `parameter_name`, in order), and
// `body`, the template's body text as approved in WhatsApp Manager, so the text the lead received
// can be recorded in memory (`{{1}}`… or `{{name}}` replaced by the parameters). Meta's send answer
// does not return the rendered text.
import type { CloudTemplateRef } from './client.js';

/** An approved template with, optionally, its approved body text (what memory records as sent). */
export interface CloudTemplate extends CloudTemplateRef {
  /** The approved body text with `{{1}}` / `{{name}}` placeholders. */
  body?: string;
}

/** Templates by purpose (`primeiro_contato`, `alerta_hunter`, `follow_up`, …). */
export type CloudTemplates = Record<string, CloudTemplate>;

const NAME = /^[a-z0-9_]{1,512}$/;
const LANGUAGE = /^[a-z]{2,3}(_[A-Z]{2})?$/;
const PARAMETER_NAME = /^[a-z0-9_]{1,64}$/;

/**
 * The templates column (a JSON text or an already parsed object; null/empty: none), checked: each
 * purpose needs a `name` (lower case letters, digits, `_`, as Meta requires) and a `language` code
 * (`pt_BR`). Throws TypeError listing every problem.
 */
export function parseCloudTemplates(value: unknown): CloudTemplates {
  if (value === null || value === undefined || value === '') return {};
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new TypeError('templates: not JSON');
    }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new TypeError('templates: must be a JSON object of purposes');
  const problems: string[] = [];
  const out: CloudTemplates = {};
  for (const [purpose, raw] of Object.entries(parsed as Record<string, unknown>)) {
    const t = raw as Record<string, unknown> | null;
    if (!t || typeof t !== 'object' || Array.isArray(t)) {
      problems.push(`${purpose}: must be an object {name, language}`);
      continue;
    }
    if (typeof t.name !== 'string' || !NAME.test(t.name)) problems.push(`${purpose}.name: lower case letters, digits and _ only`);
    if (typeof t.language !== 'string' || !LANGUAGE.test(t.language)) problems.push(`${purpose}.language: a code such as pt_BR`);
    const names = t.parameter_names;
    if (names !== undefined && (!Array.isArray(names) || names.some((n) => typeof n !== 'string' || !PARAMETER_NAME.test(n))))
      problems.push(`${purpose}.parameter_names: a list of lower case names`);
    if (t.body !== undefined && typeof t.body !== 'string') problems.push(`${purpose}.body: must be text`);
    out[purpose] = {
      name: String(t.name),
      language: String(t.language),
      ...(Array.isArray(names) ? { parameter_names: names as string[] } : {}),
      ...(typeof t.body === 'string' ? { body: t.body } : {}),
    };
  }
  if (problems.length > 0) throw new TypeError(`templates: ${problems.join('; ')}`);
  return out;
}

/**
 * The text a template renders: `body` with `{{1}}`, `{{2}}`… (or `{{<parameter name>}}`) replaced by
 * the parameters; without a body, `[template <name>]`. A placeholder with no parameter stays as is.
 */
export function renderTemplateText(template: CloudTemplate, parameters: string[]): string {
  if (typeof template.body !== 'string') return `[template ${template.name}]`;
  const names = template.parameter_names ?? [];
  return template.body.replace(/\{\{\s*([a-z0-9_]+)\s*\}\}/g, (whole, key: string) => {
    const index = /^\d+$/.test(key) ? Number(key) - 1 : names.indexOf(key);
    const value = index >= 0 ? parameters[index] : undefined;
    return value ?? whole;
  });
}
