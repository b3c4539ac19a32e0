// Delivery statuses of LeadFlow's messages as each provider's webhooks report them, written to the
// transcript (`mensagens.status`, CONTRACT §13) of the row whose provider_message_id the report names
// (transcript.record stores each sent paragraph's id from gateway.send's answer).
//
//   cloud      value.statuses[]: {id (wamid), status sent | delivered | read | played | failed}
//   uazapi     EventType `messages_update` (also `message_update`): event.MessageIDs[] (bare ids)
//              with event.Type Sent | ServerAck | Delivered | Read | ReadSelf | Played | Failed
//   evolution  event `messages.update`: data.keyId (or data.key.id) with data.status SERVER_ACK |
//              DELIVERY_ACK | READ | PLAYED | ERROR (data may be a list of such)
// Mapped to `enviada`, `entregue`, `lida`, `falhou`. A status never goes back (a late `delivered`
// after `read` leaves `lida`); `falhou` replaces `enviada` only. Unknown shapes report nothing; the
// parsers never throw.
import type { JsonValue } from '../../engine/types.js';
import type { TableOperations } from '../db/table-ops.js';

/** A transcript row's delivery status. */
export type DeliveryStatus = 'enviada' | 'entregue' | 'lida' | 'falhou';

/** One report: the provider's message id and what became of it. */
export interface DeliveryReport {
  messageid: string;
  status: DeliveryStatus;
}

type Obj = { [key: string]: JsonValue };
const asObj = (v: JsonValue | undefined): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? v : undefined);
const asArr = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);
const id = (v: JsonValue | undefined): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

const CLOUD: Record<string, DeliveryStatus> = { sent: 'enviada', delivered: 'entregue', read: 'lida', played: 'lida', failed: 'falhou' };
const UAZAPI: Record<string, DeliveryStatus> = {
  sent: 'enviada',
  serverack: 'enviada',
  delivered: 'entregue',
  deliveryack: 'entregue',
  read: 'lida',
  readself: 'lida',
  played: 'lida',
  failed: 'falhou',
  error: 'falhou',
};
const EVOLUTION: Record<string, DeliveryStatus> = {
  SERVER_ACK: 'enviada',
  DELIVERY_ACK: 'entregue',
  READ: 'lida',
  PLAYED: 'lida',
  ERROR: 'falhou',
};

/** The statuses of a Cloud API webhook body, in body order. */
export function cloudDeliveryReports(body: JsonValue): DeliveryReport[] {
  const out: DeliveryReport[] = [];
  for (const entry of asArr(asObj(body)?.entry)) {
    for (const change of asArr(asObj(entry)?.changes)) {
      for (const s of asArr(asObj(asObj(change)?.value)?.statuses)) {
        const messageid = id(asObj(s)?.id);
        const status = CLOUD[String(asObj(s)?.status)];
        if (messageid && status) out.push({ messageid, status });
      }
    }
  }
  return out;
}

/** The statuses of a uazapi `messages_update` body. */
export function uazapiDeliveryReports(body: JsonValue): DeliveryReport[] {
  const root = asObj(body);
  if (!root || !/^messages?_update$/i.test(String(root.EventType))) return [];
  const event = asObj(root.event) ?? asObj(root.message) ?? {};
  const status = UAZAPI[String(event.Type ?? event.type ?? event.status ?? '').toLowerCase()];
  if (!status) return [];
  const ids = [...asArr(event.MessageIDs), ...asArr(event.messageid)].map(id).filter((m): m is string => m !== undefined);
  return ids.map((messageid) => ({ messageid, status }));
}

/** The statuses of an Evolution `messages.update` body. */
export function evolutionDeliveryReports(body: JsonValue): DeliveryReport[] {
  const root = asObj(body);
  if (!root || String(root.event).toLowerCase().replace('_', '.') !== 'messages.update') return [];
  const out: DeliveryReport[] = [];
  for (const item of asArr(root.data)) {
    const d = asObj(item);
    const messageid = id(d?.keyId) ?? id(asObj(d?.key)?.id);
    const status = EVOLUTION[String(d?.status)];
    if (messageid && status) out.push({ messageid, status });
  }
  return out;
}

const RANK: Record<DeliveryStatus, number> = { enviada: 1, falhou: 2, entregue: 3, lida: 4 };

/** True when `next` may replace `current` (see the file's head). */
export function advances(current: unknown, next: DeliveryStatus): boolean {
  if (typeof current !== 'string' || !(current in RANK)) return true;
  return RANK[next] > RANK[current as DeliveryStatus];
}

/** Writes each report to the transcript rows of its message id (rows of outbound messages only). */
export async function recordDeliveryReports(db: Pick<TableOperations, 'find' | 'update'>, reports: DeliveryReport[]): Promise<void> {
  for (const report of reports) {
    const rows = await db.find('mensagens', { where: { provider_message_id: report.messageid, direcao: 'saida' }, limit: 10 });
    for (const row of rows) {
      if (advances(row.status, report.status)) await db.update('mensagens', { id: row.id }, { status: report.status });
    }
  }
}
