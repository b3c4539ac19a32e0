// The source of the generated flow validator (flow-validator.ts): written by the build
// (cli/write-validators.ts), never loaded by a command, so ajv's code generator stays out of every
// command's start.
import type { ValidateFunction } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { ajvClass, type RunAjv } from '../run/run-ajv.js';
import { FLOW_AJV_OPTIONS, flowSchemaHash } from './flow-validator.js';

type StandaloneCode = (ajv: RunAjv, validate: ValidateFunction) => string;
const standaloneCode = ((standaloneModule as unknown as { default?: StandaloneCode }).default ??
  standaloneModule) as unknown as StandaloneCode;

/**
 * The CommonJS source of the validator of `schema` (ajv standalone code), exporting `schemaHash` too.
 * Generated with ajv's code optimiser on (FLOW_AJV_OPTIONS turn it off for compiling at run time):
 * the same checks in ~7 % less code for every command to read; the build pays the extra time.
 */
export function flowValidatorSource(schema: object): string {
  const Ajv = ajvClass();
  const ajv = new Ajv({ ...FLOW_AJV_OPTIONS, code: { ...FLOW_AJV_OPTIONS.code, source: true, optimize: true } });
  const code = standaloneCode(ajv, ajv.compile(schema));
  return `${code}\nmodule.exports.schemaHash = ${JSON.stringify(flowSchemaHash(schema))};\n`;
}
