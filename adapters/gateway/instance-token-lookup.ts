// The instance-token check of `POST /leadagent` (CONTRACT §4, §11): which registered uazapi instance
// (`instancias_whatsapp`, provider `uazapi`) an inbound gateway event's `token` belongs to. Every
// registered token is compared, each in constant time, without stopping at a match
// (inbound-instances.ts): the answer time does not depend on the token sent. An Evolution or Cloud
// instance's token (its API key or access token) never authenticates a uazapi event.
import { DbInboundInstances, type InstanceRowSource } from './inbound-instances.js';

export type { InstanceRowSource } from './inbound-instances.js';

/** What the check hands the flow as `trigger.auth`: never the token. */
export interface InstanceGrant {
  [key: string]: number | string;
  instance_id: number;
  clinica_id: number;
  provider: 'uazapi';
}

/** `{instance_id, clinica_id, provider: 'uazapi'}` of the uazapi instance whose token is `token`, or undefined (also for ''). */
export async function findInstanceByToken(db: InstanceRowSource, token: string): Promise<InstanceGrant | undefined> {
  const found = await new DbInboundInstances(db).byToken('uazapi', token);
  return found ? { instance_id: found.id, clinica_id: found.clinica_id, provider: 'uazapi' } : undefined;
}
