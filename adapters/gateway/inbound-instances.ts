// The database's InboundInstanceLookup (provider-inbound.ts) over `instancias_whatsapp`:
//   byToken / byVerifyToken  every row's credential is compared with the one sent, each in constant
//                            time (engine/constant-time.ts: lengths do not matter either), without
//                            stopping at a match, whatever the row's provider: the answer time does
//                            not tell which instance, provider or whether any matched. Rows are read
//                            in pages of 1000 (one row per clinic phone: a small table).
//   byExternalId             the unique (provider, external_id) index of migration 011.
// An empty credential or id never matches (nor does a row whose credential is empty or null).
// Through a `Database` the rows come from its configuration read cache (adapters/db/database.ts):
// the same few seconds' TTL, dropped when this process writes the table through that Database; the
// comparison still runs over every row of every lookup. A secret is never part of a cache key: the
// scan's query names no credential.
import { constantTimeMatcher } from '../../engine/constant-time.js';
import type { FindOptions, Row } from '../db/table-ops.js';
import type { GatewayProvider } from './providers.js';
import type { InboundInstance, InboundInstanceLookup } from './provider-inbound.js';

/** What the lookup reads rows through (a Database, or a transaction's). */
export interface InstanceRowSource {
  find(table: string, options?: FindOptions): Promise<Row[]>;
}

const PAGE = 1000;

function inboundInstance(row: Row): InboundInstance {
  const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
  return {
    id: Number(row.id),
    clinica_id: Number(row.clinica_id),
    provider: (text(row.provider) ?? 'uazapi') as GatewayProvider,
    nome: String(row.nome ?? ''),
    external_id: text(row.external_id),
    token: String(row.token ?? ''),
    app_secret: text(row.app_secret),
    verify_token: text(row.verify_token),
  };
}

/** The InboundInstanceLookup over `instancias_whatsapp` (see the file's head: constant-time scans, pages of 1000, the provider index). */
export class DbInboundInstances implements InboundInstanceLookup {
  constructor(private readonly db: InstanceRowSource) {}

  byToken(provider: GatewayProvider, token: string): Promise<InboundInstance | undefined> {
    return this.scan('token', provider, token);
  }

  byVerifyToken(provider: GatewayProvider, verifyToken: string): Promise<InboundInstance | undefined> {
    return this.scan('verify_token', provider, verifyToken);
  }

  async byExternalId(provider: GatewayProvider, externalId: string): Promise<InboundInstance | undefined> {
    if (typeof externalId !== 'string' || externalId === '') return undefined;
    const [row] = await this.db.find('instancias_whatsapp', { where: { provider, external_id: externalId }, limit: 1 });
    return row ? inboundInstance(row) : undefined;
  }

  /** The first instance of `provider` whose `column` equals `secret`, every row compared in constant time. */
  private async scan(column: 'token' | 'verify_token', provider: GatewayProvider, secret: string): Promise<InboundInstance | undefined> {
    let found: Row | undefined;
    let after: number | undefined;
    const wanted = typeof secret === 'string' ? secret : '';
    const isWanted = constantTimeMatcher(wanted);
    for (;;) {
      const rows = await this.db.find('instancias_whatsapp', {
        ...(after !== undefined ? { where: { id: { gt: after } } } : {}),
        order_by: [{ column: 'id', direction: 'asc' }],
        limit: PAGE,
      });
      for (const row of rows) {
        const stored = typeof row[column] === 'string' ? (row[column] as string) : '';
        const same = isWanted(stored);
        const ofProvider = (typeof row.provider === 'string' && row.provider !== '' ? row.provider : 'uazapi') === provider;
        if (same && stored !== '' && ofProvider && !found) found = row;
      }
      if (rows.length < PAGE) break;
      after = Number(rows[rows.length - 1]!.id);
    }
    if (!found || wanted === '') return undefined;
    return inboundInstance(found);
  }
}
