// A clinic's `agenda` in seed data (CONTRACT.md §12): its problems as seed problems, and its stored
// form. A problem inside an object is pointed at its field (`clinicas[0].agenda.google.calendar_id`);
// one inside JSON text, or inside a key file given as JSON text, at that text, its field named in the
// message. Every message names the clinic; none holds a credential's value.
import { AgendaConfigError, formatAgenda, parseAgenda } from '../calendar/agenda-config.js';
import type { SeedProblem } from './seed-validation-error.js';

/** The longest prefix of `path` that names nested object fields of `value` (where a file position can point). */
function keyedPrefix(value: unknown, path: string[]): string[] {
  const out: string[] = [];
  let at = value;
  for (const key of path) {
    if (typeof at !== 'object' || at === null || Array.isArray(at) || !(key in at)) {
      // A missing field is pointed at by its own name (as ajv's `required` problems are), if its parent is an object.
      if (typeof at === 'object' && at !== null && !Array.isArray(at)) out.push(key);
      break;
    }
    out.push(key);
    at = (at as Record<string, unknown>)[key];
  }
  return out;
}

/** Every problem of a clinic's `agenda` (object, JSON text or null) at `path`, naming `clinic`. */
export function agendaProblems(value: unknown, clinic: unknown, path: Array<string | number>): SeedProblem[] {
  if (typeof value !== 'string' && (typeof value !== 'object' || value === null || Array.isArray(value))) return [];
  try {
    parseAgenda(value);
    return [];
  } catch (err) {
    if (!(err instanceof AgendaConfigError)) throw err;
    const whose = typeof clinic === 'string' && clinic.trim() !== '' ? ` (clinic "${clinic.trim()}")` : '';
    return err.problems.map((p) => {
      const keyed = keyedPrefix(value, p.path);
      const rest = p.path.slice(keyed.length);
      return { path: [...path, ...keyed], message: `${rest.length > 0 ? `${rest.join('.')}: ` : ''}${p.message}${whose}` };
    });
  }
}

/** A valid agenda (object, JSON text or null) as stored: its normal JSON text, or null when none. */
export function normalAgenda(value: unknown): string | null {
  const config = parseAgenda(value);
  return config ? formatAgenda(config) : null;
}
