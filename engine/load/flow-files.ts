// The files a flow reads (`files: { NAME: relative/path }`), read when the flow loads so their text
// is part of the flow's version: an edit of a prompt is a new version, like an edit of the YAML.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import type { FlowSource, LoadProblem } from '../types.js';
import type { YamlSource } from './yaml-source.js';

/** Gives the text of a declared file path (relative to the flow file, as written); throws when it cannot. */
export type FlowFileReader = (path: string) => string;

/** What readFlowFiles gives: the files by declared name, the source they make with the YAML, and problems. */
export interface FlowFilesRead {
  /** Declared name -> text (`files.NAME` in expressions). */
  files: Record<string, string>;
  /** The YAML text and the files read, by path: what the version is a hash of. */
  source: FlowSource;
  problems: LoadProblem[];
}

/**
 * Reads every file `declared` (name -> path relative to the flow file) with `read`. A path that is
 * absolute or climbs out with `..` is an `invalid-value` problem, one that cannot be read an
 * `unreadable-file` problem, each at `files.NAME`. Never throws.
 */
export function readFlowFiles(declared: unknown, source: YamlSource, read: FlowFileReader): FlowFilesRead {
  const out: FlowFilesRead = { files: {}, source: { text: source.text, files: {} }, problems: [] };
  if (!declared || typeof declared !== 'object' || Array.isArray(declared)) return out;
  for (const [name, path] of Object.entries(declared as Record<string, unknown>)) {
    if (typeof path !== 'string') continue; // the schema reports it
    if (isAbsolute(path) || path.split(/[\\/]/).includes('..')) {
      out.problems.push(
        source.problem(['files', name], 'invalid-value', `files.${name}: "${path}" must be a path inside the flow's directory`),
      );
      continue;
    }
    try {
      const text = read(path);
      out.files[name] = text;
      out.source.files[path] = text;
    } catch (err) {
      out.problems.push(
        source.problem(['files', name], 'unreadable-file', `files.${name}: cannot read "${path}": ${(err as Error).message}`),
      );
    }
  }
  return out;
}

/** Reads declared paths from disk, relative to the directory of `flowFile`. */
export function diskReader(flowFile: string): FlowFileReader {
  return (path) => readFileSync(join(dirname(flowFile), path), 'utf8');
}

/** Reads declared paths from a stored FlowSource only; a path it does not hold throws. */
export function sourceReader(source: FlowSource): FlowFileReader {
  return (path) => {
    if (!Object.hasOwn(source.files, path)) throw new Error('not part of this flow version');
    return source.files[path]!;
  };
}

/**
 * The version of a flow source: hex SHA-256 over its YAML text and its files (sorted by path), so
 * the same text and files give the same version whatever the file is called. Never throws.
 */
export function flowVersionOf(source: FlowSource): string {
  const files = Object.keys(source.files)
    .sort()
    .map((path) => [path, source.files[path]]);
  return createHash('sha256')
    .update(JSON.stringify([source.text, files]))
    .digest('hex');
}
