// Build step (`npm run build`, after tsc): writes, as ajv standalone code, the validators no command
// should compile at start (run as `node dist/cli/write-validators.js`):
// - dist/engine/load/flow-validator.generated.cjs: the flow schema of the shipped node types
//   (engine/load/flow-validator.ts);
// - dist/engine/run/schema-validators.generated.cjs: each shipped node type's params schema, the
//   gateways' event schemas, the `trigger.input` of each flow shipped in the package's flows/, and
//   JSON Schema draft-07 (engine/run/prebuilt-validators.ts). A flow edited since the build keeps
//   working: a schema whose text differs from the generated one is compiled when the flow loads.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cloudEventSchema } from '../adapters/gateway/cloud/event-schema.js';
import { evolutionEventSchema } from '../adapters/gateway/evolution/event-schema.js';
import { uazapiEventSchema } from '../adapters/gateway/uazapi/event-schema.js';
import { buildFlowSchema } from '../engine/flow-schema.js';
import { GENERATED_FLOW_VALIDATOR } from '../engine/load/flow-validator.js';
import { flowValidatorSource } from '../engine/load/flow-validator-source.js';
import { listFlowFiles } from '../engine/load/loader.js';
import { YamlSource } from '../engine/load/yaml-source.js';
import { packageRoot } from '../engine/package-root.js';
import { GENERATED_SCHEMA_VALIDATORS } from '../engine/run/prebuilt-validators.js';
import { prebuiltValidatorsSource } from '../engine/run/prebuilt-validators-source.js';
import { createRunAjv } from '../engine/run/run-ajv.js';
import { defaultRegistry } from '../nodes/index.js';

const registry = defaultRegistry();

/**
 * The `trigger.input` schemas of the flows in `dir`, read as the loader reads them. Only those that are
 * valid draft-07 schemas and compile: any other is left to the loader, which reports it.
 */
function shippedInputSchemas(dir: string): object[] {
  const ajv = createRunAjv();
  return listFlowFiles(dir).flatMap((file) => {
    try {
      const data = new YamlSource(file, readFileSync(file, 'utf8')).toJS() as { trigger?: { input?: unknown } } | null;
      const input = data?.trigger?.input;
      if (!input || typeof input !== 'object' || Array.isArray(input)) return [];
      ajv.validateSchema(input, true);
      ajv.compile(structuredClone(input));
      return [input];
    } catch {
      return [];
    }
  });
}

const flowFile = fileURLToPath(new URL(`../engine/load/${GENERATED_FLOW_VALIDATOR}`, import.meta.url));
writeFileSync(flowFile, flowValidatorSource(buildFlowSchema(registry)));
process.stderr.write(`flow validator: ${flowFile}\n`);

const inputs = shippedInputSchemas(join(packageRoot(import.meta.dirname), 'flows'));
const schemas = [...registry.all().map((def) => def.params), uazapiEventSchema, evolutionEventSchema, cloudEventSchema, ...inputs];
const schemasFile = fileURLToPath(new URL(`../engine/run/${GENERATED_SCHEMA_VALIDATORS}`, import.meta.url));
writeFileSync(schemasFile, prebuiltValidatorsSource(schemas));
process.stderr.write(`schema validators: ${schemasFile} (${schemas.length} schemas, ${inputs.length} of them flow inputs, and draft-07)\n`);
