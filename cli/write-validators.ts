// Build step (`npm run build`, after tsc): writes, as ajv standalone code, the validators no command
// should compile at start (run as `node dist/cli/write-validators.js`):
// - dist/engine/load/flow-validator.generated.cjs: the flow schema of the shipped node types
//   (engine/load/flow-validator.ts);
// - dist/engine/run/schema-validators.generated.cjs: each shipped node type's params schema, the
//   gateways' event schemas and JSON Schema draft-07 (engine/run/prebuilt-validators.ts).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { evolutionEventSchema } from '../adapters/gateway/evolution/evolution-event-schema.js';
import { uazapiEventSchema } from '../adapters/gateway/uazapi-event-schema.js';
import { buildFlowSchema } from '../engine/flow-schema.js';
import { flowValidatorSource, GENERATED_FLOW_VALIDATOR } from '../engine/load/flow-validator.js';
import { GENERATED_SCHEMA_VALIDATORS, prebuiltValidatorsSource } from '../engine/run/prebuilt-validators.js';
import { defaultRegistry } from '../nodes/index.js';

const registry = defaultRegistry();

const flowFile = fileURLToPath(new URL(`../engine/load/${GENERATED_FLOW_VALIDATOR}`, import.meta.url));
writeFileSync(flowFile, flowValidatorSource(buildFlowSchema(registry)));
process.stderr.write(`flow validator: ${flowFile}\n`);

const schemas = [...registry.all().map((def) => def.params), uazapiEventSchema, evolutionEventSchema];
const schemasFile = fileURLToPath(new URL(`../engine/run/${GENERATED_SCHEMA_VALIDATORS}`, import.meta.url));
writeFileSync(schemasFile, prebuiltValidatorsSource(schemas));
process.stderr.write(`schema validators: ${schemasFile} (${schemas.length} schemas and draft-07)\n`);
