// Build step (`npm run build`, after tsc): writes the flow schema validator of the shipped node types
// as ajv standalone code to dist/engine/load/flow-validator.generated.cjs, so no command compiles the
// flow schema at start (engine/load/flow-validator.ts). Run as `node dist/cli/write-flow-validator.js`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildFlowSchema } from '../engine/flow-schema.js';
import { flowValidatorSource, GENERATED_FLOW_VALIDATOR } from '../engine/load/flow-validator.js';
import { defaultRegistry } from '../nodes/index.js';

const file = fileURLToPath(new URL(`../engine/load/${GENERATED_FLOW_VALIDATOR}`, import.meta.url));
writeFileSync(file, flowValidatorSource(buildFlowSchema(defaultRegistry())));
process.stderr.write(`flow validator: ${file}\n`);
