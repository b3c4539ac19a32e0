// `ctx.services.instances`: looks up a WhatsApp instance (a row of `instancias_whatsapp`) by id, so
// flows pass only `instance_id` and the credentials are fetched when a gateway call is made. The
// database implementation is `Database.instanceById` (adapters/db/database.ts).
import type { TemplateSet } from './gateway-client.js';
import type { GatewayProvider } from './providers.js';
import { readTemplateSet } from './templates.js';

/** One row of `instancias_whatsapp` as nodes and gateway clients read it. Holds credentials: never log, record or return it. */
export interface GatewayInstance {
  id: number;
  clinica_id: number;
  /** The provider the instance speaks through (CONTRACT §11); `uazapi` for rows older than providers. */
  provider: GatewayProvider;
  /** Base URL of the provider's server: the uazapi or Evolution server, or the Graph API base for Cloud. */
  server_url: string;
  /** Instance token / API key / Cloud access token. A credential: never log, record or return it. */
  token: string;
  /** Evolution: the instance name; Cloud: the phone number id; uazapi: null. */
  external_id: string | null;
  /** Cloud: the webhook's app secret; Evolution: the webhook's `jwt_key`. A credential, like `token`. */
  app_secret: string | null;
  /** Cloud: the webhook verification token. A credential, like `token`. */
  verify_token: string | null;
  /** Cloud: the approved templates (adapters/gateway/templates.ts); null when none or unreadable. */
  templates: TemplateSet | null;
}

/** `ctx.services.instances`: the WhatsApp instances by id. */
export interface InstanceDirectory {
  /** The instance with this id, or undefined when there is none. */
  get(id: number): Promise<GatewayInstance | undefined>;
}

/**
 * A row of `instancias_whatsapp` (as the table operations return it) as a GatewayInstance: `provider`
 * `uazapi` when null, empty strings of the optional columns as null, `templates` read from its JSON
 * text. A provider the service does not know passes through as written, so the gateway factory names
 * it (UnknownGatewayProviderError) rather than some other provider answering.
 */
export function gatewayInstanceFromRow(row: Record<string, unknown>): GatewayInstance {
  const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
  return {
    id: Number(row.id),
    clinica_id: Number(row.clinica_id),
    provider: (text(row.provider) ?? 'uazapi') as GatewayProvider,
    server_url: String(row.server_url ?? ''),
    token: String(row.token ?? ''),
    external_id: text(row.external_id),
    app_secret: text(row.app_secret),
    verify_token: text(row.verify_token),
    templates: readTemplateSet(row.templates),
  };
}
