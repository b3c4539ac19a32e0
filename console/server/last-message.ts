// The transcript's newest message of each lead, as SQL over `leads` (SQLite and PostgreSQL alike):
// the newest non-`evento` row of `mensagens` (CONTRACT §13) by `created_at`, then `id`. The leads
// list reads its last message, its order and "waiting for a person" (aguardando) from it.
import type { Knex } from 'knex';
import { isoOf, type LastMessage } from './lead-rows.js';

/** Columns of the newest transcript row that the list reads. */
export type LastMessageColumn = 'conteudo' | 'created_at' | 'direcao';

/** Correlated subquery (no bindings): `column` of the newest non-`evento` `mensagens` row of `leads.id`, or NULL without one. */
export function lastMessageSql(column: LastMessageColumn): string {
  return `(select m.${column} from mensagens m where m.lead_id = leads.id and m.tipo <> 'evento' order by m.created_at desc, m.id desc limit 1)`;
}

/** The time of the lead's last message: the transcript's newest row, else `leads.ultima_mensagem_at` (NULL without either). */
export const LAST_MESSAGE_AT_SQL = `coalesce(${lastMessageSql('created_at')}, leads.ultima_mensagem_at)`;

/**
 * Narrows `query` (on `leads`) to the leads waiting for a person as of `now` (ms): the newest
 * transcript row is `entrada` and the lead is transferred or paused (`pausado_ate` after now).
 */
export function whereWaiting(query: Knex.QueryBuilder, now: number): void {
  query.whereRaw(`${lastMessageSql('direcao')} = 'entrada'`);
  query.where((w) => {
    w.where('leads.transferido', true).orWhere('leads.pausado_ate', '>', new Date(now).toISOString());
  });
}

/** The newest non-`evento` transcript row of lead `leadId`, or undefined without one. */
export async function lastMessageOf(knex: Knex, leadId: number): Promise<LastMessage | undefined> {
  const row = (await knex('mensagens')
    .where({ lead_id: leadId })
    .whereNot('tipo', 'evento')
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .first('conteudo', 'created_at', 'direcao')) as { conteudo: string | null; created_at: unknown; direcao: string } | undefined;
  const at = isoOf(row?.created_at);
  if (!row || at === null) return undefined;
  return { conteudo: row.conteudo ?? '', created_at: at, direcao: row.direcao === 'entrada' ? 'entrada' : 'saida' };
}
