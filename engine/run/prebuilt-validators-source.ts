// The source of the prebuilt validators (prebuilt-validators.ts): written by the build
// (cli/write-validators.ts), never loaded by a command, so ajv's compiler and code generator stay out
// of every command's start.
import { _ } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { DRAFT_07_EXPORT } from './prebuilt-validators.js';
import { createRunAjv, DRAFT_07_ID, type RunAjv } from './run-ajv.js';

type StandaloneCode = (ajv: RunAjv, refs: Record<string, string>) => string;
const standaloneCode = ((standaloneModule as unknown as { default?: StandaloneCode }).default ??
  standaloneModule) as unknown as StandaloneCode;

/**
 * The CommonJS source of the validators of `schemas` (each by its JSON text, compiled from that text)
 * and of draft-07, exporting the texts (`schemaTexts`: export name -> text) to match them by.
 */
export function prebuiltValidatorsSource(schemas: object[]): string {
  // ajv-formats in the generated code: required from node_modules where the file is loaded.
  const ajv = createRunAjv({ source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` });
  const texts = [...new Set(schemas.map((schema) => JSON.stringify(schema)))];
  const refs: Record<string, string> = { [DRAFT_07_EXPORT]: DRAFT_07_ID };
  const schemaTexts: Record<string, string> = {};
  texts.forEach((text, i) => {
    const name = `schema${i}`;
    ajv.addSchema(JSON.parse(text) as object, name);
    refs[name] = name;
    schemaTexts[name] = text;
  });
  return `${standaloneCode(ajv, refs)}\nexports.schemaTexts = ${JSON.stringify(schemaTexts)};\n`;
}
