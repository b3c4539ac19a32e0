// The console's routes on the admin router (behind its bearer-or-session check): clinics, leads, a
// lead's page and its actions, the flows (flows.ts), the overview, each clinic's agenda (agenda.ts). See each file for its contract; api-types.ts for the bodies.
import express, { type Router } from 'express';
import { type BookingService, bookingService } from '../../adapters/calendar/booking-service.js';
import type { Database } from '../../adapters/db/database.js';
import type { KeyValue } from '../../adapters/kv/key-value.js';
import type { Engine } from '../../engine/engine.js';
import type { ExecutionStore } from '../../engine/store/execution-store.js';
import type { FlowLoadReport } from '../../cli/flow-load-report.js';
import { mountAgenda } from './agenda.js';
import { mountAuditRoutes } from './audit-routes.js';
import { changeOwnPassword } from './account-session.js';
import { listClinics } from './clinics.js';
import { getFlow, listFlows } from './flows.js';
import { mountLeadActions } from './lead-actions.js';
import { getLead } from './lead-detail.js';
import { mountLeadReply } from './lead-reply.js';
import { listLeads } from './leads-query.js';
import { getOverview } from './overview.js';
import { adminOnly, mountUsers } from './users-api.js';
import { getTranscript } from './transcript.js';
import { mountTranscriptMedia } from './transcript-media.js';
import type { GatewayClientFactory } from '../../adapters/gateway/gateway-client.js';
import type { InstanceDirectory } from '../../adapters/gateway/instance-directory.js';

/** What the console's JSON routes read and act on. */
export interface ConsoleRouteDeps {
  db: Database;
  store: ExecutionStore;
  engine: Engine;
  /** The latest load of the flows directory (its problems, for GET /admin/flows). */
  flowLoads: FlowLoadReport;
  /** The booking store (the runtime's, with its clock); default: one over `db` with the system clock. */
  booking?: BookingService;
  /** The key-value store (the Cloud API's 24-hour windows, read before a reply); absent: windows taken as open. */
  kv?: KeyValue;
  /** The runtime's clock, ms since the epoch (the Cloud window); default Date.now. */
  now?: () => number;
  /** The gateway clients and instances a transcript's media are downloaded again with; absent: no media route. */
  media?: { gateway: GatewayClientFactory; instances: InstanceDirectory };
}

/**
 * The console's JSON routes (clinics, leads, a lead and its actions, a reply, flows, overview, the
 * audit, accounts), added to the admin router it is given; that router's bearer-or-session check runs
 * first. The role guard comes first of all (CONTRACT.md §13): executions (the admin router's own
 * routes, mounted after these), flows, accounts and the global audit answer 403 to `equipe` and
 * `hunter`; every other route narrows itself to the principal's clinics and leads (lead-scope.ts).
 */
export function consoleRoutes({
  db,
  store,
  engine,
  flowLoads,
  booking = bookingService(db),
  kv,
  now,
  media,
}: ConsoleRouteDeps): (router: Router) => void {
  return (router) => {
    router.use(['/executions', '/flows', '/audit'], adminOnly);
    mountUsers(router, db);
    router.post('/session/password', express.json({ limit: '4kb' }), (req, res) => changeOwnPassword(db, req, res));
    router.get('/clinics', listClinics(db));
    router.get('/leads', listLeads(db));
    router.get('/leads/:id', getLead(db, store, booking));
    router.get('/leads/:id/messages', getTranscript(db));
    if (media) mountTranscriptMedia(router, { db, ...media });
    mountLeadActions(router, db, engine);
    mountLeadReply(router, { db, engine, ...(kv ? { kv } : {}), ...(now ? { now } : {}) });
    mountAuditRoutes(router, db);
    router.get('/flows', listFlows(engine, flowLoads));
    router.get('/flows/:name', getFlow(engine));
    router.get('/overview', getOverview(db));
    mountAgenda(router, { db, booking, engine });
  };
}
