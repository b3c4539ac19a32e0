// Domain node types used by flows/handoff.yaml, for nodes/lead/index.ts.
import type { NodeDefinition } from '../../engine/types.js';
import handoffNotification from './handoff-notification.js';

export const handoffNodes: NodeDefinition[] = [handoffNotification] as unknown as NodeDefinition[];
