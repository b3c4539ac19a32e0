// The console's routes on the admin router (behind its bearer-or-session check): clinics, leads, a
// lead's page and its actions, the overview. See each file for its contract; api-types.ts for the bodies.
import type { Router } from 'express';
import type { Database } from '../../adapters/db/database.js';
import type { Engine } from '../../engine/engine.js';
import type { ExecutionStore } from '../../engine/store/execution-store.js';
import { listClinics } from './clinics.js';
import { mountLeadActions } from './lead-actions.js';
import { getLead } from './lead-detail.js';
import { listLeads } from './leads-query.js';
import { getOverview } from './overview.js';

export interface ConsoleRouteDeps {
  db: Database;
  store: ExecutionStore;
  engine: Engine;
}

export function consoleRoutes({ db, store, engine }: ConsoleRouteDeps): (router: Router) => void {
  return (router) => {
    router.get('/clinics', listClinics(db));
    router.get('/leads', listLeads(db));
    router.get('/leads/:id', getLead(db, store));
    mountLeadActions(router, db, engine);
    router.get('/overview', getOverview(db));
  };
}
