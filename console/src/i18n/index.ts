// The console's language: one Messages object, chosen here. To add a language, add a file shaped
// like ./pt-BR.ts and pick it (e.g. from navigator.language).
import { type Messages, ptBR } from './pt-BR.js';

/** The texts of the active language. */
export const t: Messages = ptBR;
