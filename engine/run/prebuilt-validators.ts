// Validators generated at build for the schemas every process would otherwise compile when it
// starts: the params schema of each shipped node type, and JSON Schema draft-07, the meta-schema a
// flow's `trigger.input` is checked against. Compiling them with ajv costs ~100 ms of every command
// that loads flows (validate, graph, serve…); `npm run build` writes them once as ajv standalone code
// to dist/engine/run/schema-validators.generated.cjs (cli/write-validators.ts), with the same ajv
// options as the run-time compiler (run-ajv.ts).
//
// Contract: a schema gets its prebuilt validator only when its JSON text is exactly the text it was
// generated from (a node type changed since the build, a test's own node, running from source: it is
// compiled at run time instead, with the same options, so it accepts the same values with the same
// errors). No generated file: nothing is prebuilt, everything compiles as before.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { _, type ValidateFunction } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { packageRoot } from '../package-root.js';
import { createRunAjv, DRAFT_07_ID, type RunAjv } from './run-ajv.js';

type StandaloneCode = (ajv: RunAjv, refs: Record<string, string>) => string;
const standaloneCode = ((standaloneModule as unknown as { default?: StandaloneCode }).default ??
  standaloneModule) as unknown as StandaloneCode;

/** File name of the generated validators, in dist/engine/run/ of the package. */
export const GENERATED_SCHEMA_VALIDATORS = 'schema-validators.generated.cjs';

/** The prebuilt validators of one generated file. */
export interface PrebuiltValidators {
  /** The validator generated from exactly this JSON text of a schema, if any. */
  forSchemaText(text: string): ValidateFunction | undefined;
  /** The validator of JSON Schema draft-07 as ajv checks a schema against it (its meta options). */
  draft07?: ValidateFunction;
}

const NONE: PrebuiltValidators = { forSchemaText: () => undefined };

/** Export name of the draft-07 validator in the generated file. */
const DRAFT_07_EXPORT = 'draft07';

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

/** Where the build writes them: `<package>/dist/engine/run/` (this module may run from source or from the CLI's bundle). */
function generatedFile(): string {
  return join(packageRoot(import.meta.dirname), 'dist', 'engine', 'run', GENERATED_SCHEMA_VALIDATORS);
}

/** The validators in `file` (default: the one the build wrote); none when it is missing. */
export function loadPrebuiltValidators(file: string = generatedFile()): PrebuiltValidators {
  if (!existsSync(file)) return NONE;
  const generated = createRequire(import.meta.url)(file) as Record<string, ValidateFunction> & {
    schemaTexts: Record<string, string>;
  };
  const byText = new Map(Object.entries(generated.schemaTexts).map(([name, text]) => [text, generated[name]!]));
  return { forSchemaText: (text) => byText.get(text), draft07: generated[DRAFT_07_EXPORT] };
}

let loaded: PrebuiltValidators | undefined;

/** The build's prebuilt validators, read once per process on first use. */
export function prebuiltValidators(): PrebuiltValidators {
  loaded ??= loadPrebuiltValidators();
  return loaded;
}
