// The accounts texts of the active language (see ./people-pt-BR.ts), chosen as ./index.ts chooses `t`.
import { type PeopleMessages, peoplePtBR } from './people-pt-BR.js';

/** The accounts texts of the active language. */
export const tp: PeopleMessages = peoplePtBR;
