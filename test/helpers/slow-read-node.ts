// `test.slow-read`: a read-only node type (NodeDefinition.readOnly) whose run takes `ms` milliseconds,
// for tests of what happens while only read-only steps have run (a deferred record, a late answer).
import { Type } from '@sinclair/typebox';
import { defineNode, type NodeDefinition } from '../../engine/types.js';

/** `test.slow-read` (params `{ms}`): read-only, resolves to `{}` after `ms`. */
export const slowReadNode = defineNode({
  type: 'test.slow-read',
  description: 'A read-only step that takes a while.',
  readOnly: true,
  params: Type.Object({ ms: Type.Integer() }),
  output: { description: '{}' },
  examples: [],
  async run(params) {
    await new Promise((resolve) => setTimeout(resolve, params.ms));
    return {};
  },
}) as unknown as NodeDefinition;
