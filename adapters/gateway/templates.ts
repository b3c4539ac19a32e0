// An instance's approved templates (`instancias_whatsapp.templates`, CONTRACT §11): their shape,
// checked by `leadflow seed`, read back by the instance directory, and which one serves which
// message. JSON text in the column: `{"primeiro_contato": {"name", "language"}, "alerta_hunter":
// {…}, "follow_up": {…}, "lembrete_consulta": {…}}`, every key optional, no other key.
// `lembrete_consulta` (CONTRACT §12) is the appointment reminder of flows/reminders.yaml; its body
// parameters, in order: the lead's first name, the clinic's name, when (`terça, 02/12 às 14:30`), the
// clinic's address.
//   name      Meta's rule for template names: lower case letters, digits and `_`, 1 to 512 characters
//   language  a language code as Meta lists them: `pt_BR`, `en_US`, `es`, `zh_HK` …
//   body      optional: the approved body text with `{{1}}`… placeholders (what memory records, 1 to
//             1024 characters as Meta allows)
//   parameter_names  optional: for a template with named parameters, their names in order
// The handoff notification has no key of its own: CONTRACT §11 names one purpose, "Hunter alert and
// handoff notification", so it is sent with `alerta_hunter`.
import type { TemplateRef, TemplateSet } from './gateway-client.js';

/** The keys of a TemplateSet, in the order the docs list them. */
export const TEMPLATE_KEYS = ['primeiro_contato', 'alerta_hunter', 'follow_up', 'lembrete_consulta'] as const;

/** A message LeadFlow may have to send as a template: which key of the set serves it (templateFor). */
export type TemplateUse = 'first_contact' | 'hunter_alert' | 'handoff' | 'follow_up' | 'appointment_reminder';

const KEY_OF_USE: Record<TemplateUse, keyof TemplateSet> = {
  first_contact: 'primeiro_contato',
  hunter_alert: 'alerta_hunter',
  handoff: 'alerta_hunter',
  follow_up: 'follow_up',
  appointment_reminder: 'lembrete_consulta',
};

const NAME = /^[a-z0-9_]{1,512}$/;
const LANGUAGE = /^[a-z]{2,3}(_[A-Z]{2,3})?$/;
const PARAMETER_NAME = /^[a-z0-9_]{1,64}$/;

/** The template that serves `use` (the handoff notification: `alerta_hunter`), or undefined. */
export function templateFor(set: TemplateSet | null | undefined, use: TemplateUse): TemplateRef | undefined {
  return set?.[KEY_OF_USE[use]];
}

/** One problem of a template set: the path inside it (e.g. `['alerta_hunter', 'language']`) and what. */
export interface TemplateProblem {
  path: string[];
  message: string;
}

/** Every problem of `value` as a template set (an object, not JSON text); empty when valid. */
export function templateSetProblems(value: unknown): TemplateProblem[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [{ path: [], message: 'must be an object' }];
  const problems: TemplateProblem[] = [];
  for (const [key, ref] of Object.entries(value)) {
    if (!(TEMPLATE_KEYS as readonly string[]).includes(key)) {
      problems.push({ path: [key], message: `is not a template purpose (${TEMPLATE_KEYS.join(', ')})` });
      continue;
    }
    if (!ref || typeof ref !== 'object' || Array.isArray(ref)) {
      problems.push({ path: [key], message: 'must be an object {name, language}' });
      continue;
    }
    const { name, language, body, parameter_names: names, ...rest } = ref as Record<string, unknown>;
    if (typeof name !== 'string') problems.push({ path: [key, 'name'], message: 'is required (the approved template name)' });
    else if (!NAME.test(name))
      problems.push({ path: [key, 'name'], message: `"${name}" is not a template name (lower case letters, digits and _)` });
    if (typeof language !== 'string') problems.push({ path: [key, 'language'], message: 'is required (e.g. pt_BR)' });
    else if (!LANGUAGE.test(language))
      problems.push({ path: [key, 'language'], message: `"${language}" is not a language code (e.g. pt_BR, en_US, es)` });
    if (body !== undefined && (typeof body !== 'string' || body.length < 1 || body.length > 1024))
      problems.push({ path: [key, 'body'], message: 'must be the approved body text (1 to 1024 characters)' });
    if (names !== undefined && (!Array.isArray(names) || names.some((n) => typeof n !== 'string' || !PARAMETER_NAME.test(n))))
      problems.push({ path: [key, 'parameter_names'], message: 'must be a list of parameter names (lower case letters, digits and _)' });
    for (const extra of Object.keys(rest))
      problems.push({ path: [key, extra], message: 'is not a known field (name, language, body, parameter_names)' });
  }
  return problems;
}

/** The normal form of a valid set (keys in TEMPLATE_KEYS order), as stored: JSON text. */
export function formatTemplateSet(set: TemplateSet): string {
  const out: Record<string, TemplateRef> = {};
  for (const key of TEMPLATE_KEYS) {
    const ref = set[key];
    if (ref)
      out[key] = {
        name: ref.name,
        language: ref.language,
        ...(ref.body !== undefined ? { body: ref.body } : {}),
        ...(ref.parameter_names !== undefined ? { parameter_names: [...ref.parameter_names] } : {}),
      };
  }
  return JSON.stringify(out);
}

/**
 * The set stored in a `templates` column (JSON text, or an object), or null when the column is
 * null, empty, not JSON or not a valid set: an instance with unreadable templates has none.
 */
export function readTemplateSet(value: unknown): TemplateSet | null {
  let data = value;
  if (typeof value === 'string') {
    if (value.trim() === '') return null;
    try {
      data = JSON.parse(value);
    } catch {
      return null;
    }
  }
  if (data === null || data === undefined || templateSetProblems(data).length > 0) return null;
  return JSON.parse(formatTemplateSet(data as TemplateSet)) as TemplateSet;
}
