// Erasure (`excluir`) on the in-memory execution store: the shared suite of erasure.contract.ts.
import { afterEach, describe } from 'vitest';
import { MemoryExecutionStore } from '../../engine/store/memory-store.js';
import { shutdownEngines } from '../helpers/run-flow.js';
import { erasureContract } from './erasure.contract.js';

afterEach(shutdownEngines);

describe('erasure on MemoryExecutionStore', () => {
  erasureContract(() => new MemoryExecutionStore());
});
