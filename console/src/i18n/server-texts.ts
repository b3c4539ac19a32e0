// Texts that come from the server in English, as the console shows them in the active language: the
// API's `error` texts (apiErrorText) and the flows' stop reasons (stopReasonText). Unknown API texts
// that already read as Portuguese (the agenda's, for example) pass through; other unknown ones give
// a sentence by HTTP status. Unknown stop reasons are quoted as recorded.
import { t } from './index.js';

/** Words or letters that only a Portuguese sentence has (so a server text with them is shown as is). */
const PORTUGUESE = /[ãõçáéíóúâêô]|\b(não|de|da|do|para|sem|com|uma?)\b/i;

/** The API's `error` text of an answer with `status` (0: unreachable) as the console shows it. */
export function apiErrorText(status: number, error: string): string {
  const known = t.apiErrors[error.trim()];
  if (known) return known;
  if (error && PORTUGUESE.test(error)) return error;
  return t.apiErrorByStatus[String(status)] ?? t.apiErrorByStatus.other!;
}

/** A flow's stop (or cancel) reason as the console shows it. */
export function stopReasonText(reason: string): string {
  const trimmed = reason.trim();
  const known = t.stopReasons[trimmed];
  if (known) return known;
  for (const [pattern, text] of t.stopReasonPatterns) if (pattern.test(trimmed)) return trimmed.replace(pattern, text);
  return t.stopReasonUnknown(trimmed);
}
