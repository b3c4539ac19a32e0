// Erasure (`excluir`) on the database execution store, SQLite and PostgreSQL: the shared suite of
// test/executor/erasure.contract.ts.
import { afterEach } from 'vitest';
import { DbExecutionStore } from '../../adapters/db/execution-store.js';
import { erasureContract } from '../executor/erasure.contract.js';
import { forEachDatabase, useFreshDatabase } from '../helpers/databases.js';
import { shutdownEngines } from '../helpers/run-flow.js';

afterEach(shutdownEngines);

forEachDatabase('erasure on DbExecutionStore', (open) => {
  const t = useFreshDatabase(open);
  erasureContract(() => new DbExecutionStore(t.current.db));
});
