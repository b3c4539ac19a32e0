// Validators generated at build for the schemas every process would otherwise compile when it
// starts: the params schema of each shipped node type, the gateways' event schemas, the
// `trigger.input` of each shipped flow, and JSON Schema draft-07, the meta-schema a flow's
// `trigger.input` is checked against. Compiling them with ajv costs ~100 ms of every command that
// loads flows (validate, graph, serve…), and loading ajv's compiler ~260 KB of code; `npm run build`
// writes them once as ajv standalone code to dist/engine/run/schema-validators.generated.cjs
// (prebuilt-validators-source.ts, run by cli/write-validators.ts), with the same ajv options as the
// run-time compiler (run-ajv.ts). This module only reads that file: it never loads ajv's compiler.
//
// Contract: a schema gets its prebuilt validator only when its JSON text is exactly the text it was
// generated from (a node type changed since the build, a test's own node, running from source: it is
// compiled at run time instead, with the same options, so it accepts the same values with the same
// errors). No generated file: nothing is prebuilt, everything compiles as before.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { packageRoot } from '../package-root.js';

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
export const DRAFT_07_EXPORT = 'draft07';

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
