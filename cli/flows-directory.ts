// Where the YAML flows are, in a file of its own (node:path only) so that commands can resolve it
// without loading the engine.
import { resolve } from 'node:path';

/** The flows directory: the argument, else LEADFLOW_FLOWS_DIR, else ./flows (resolved against the working directory). */
export function flowsDirectory(arg?: string): string {
  return resolve(arg ?? process.env.LEADFLOW_FLOWS_DIR ?? 'flows');
}
