// The node types backed by the key-value store (ctx.services.kv), for nodes/index.ts to register.
import type { NodeDefinition } from '../../engine/types.js';
import debounce from './debounce.js';
import dedupe from './dedupe.js';
import kvErase from './kv-erase.js';
import lock from './lock.js';

export const kvNodes: NodeDefinition[] = [debounce, dedupe, lock, kvErase] as unknown as NodeDefinition[];
