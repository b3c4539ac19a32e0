// The console's routes on the admin router (behind its bearer-or-session check): clinics, leads, a
// lead's page and its actions, the flows (flows.ts), the overview. See each file for its contract; api-types.ts for the bodies.
import type { Router } from 'express';
import type { Database } from '../../adapters/db/database.js';
import type { Engine } from '../../engine/engine.js';
import type { ExecutionStore } from '../../engine/store/execution-store.js';
import type { FlowLoadReport } from '../../cli/flow-load-report.js';
import { listClinics } from './clinics.js';
import { getFlow, listFlows } from './flows.js';
import { mountLeadActions } from './lead-actions.js';
import { getLead } from './lead-detail.js';
import { listLeads } from './leads-query.js';
import { getOverview } from './overview.js';

/** What the console's JSON routes read and act on. */
export interface ConsoleRouteDeps {
  db: Database;
  store: ExecutionStore;
  engine: Engine;
  /** The latest load of the flows directory (its problems, for GET /admin/flows). */
  flowLoads: FlowLoadReport;
}

/** The console's JSON routes (clinics, leads, a lead and its actions, flows, overview), added to the admin router it is given; that router's bearer-or-session check runs first. */
export function consoleRoutes({ db, store, engine, flowLoads }: ConsoleRouteDeps): (router: Router) => void {
  return (router) => {
    router.get('/clinics', listClinics(db));
    router.get('/leads', listLeads(db));
    router.get('/leads/:id', getLead(db, store));
    mountLeadActions(router, db, engine);
    router.get('/flows', listFlows(engine, flowLoads));
    router.get('/flows/:name', getFlow(engine));
    router.get('/overview', getOverview(db));
  };
}
