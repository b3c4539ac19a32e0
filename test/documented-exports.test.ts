// Every export of LeadFlow's source folders (engine/, adapters/, nodes/, cli/, console/) states its
// contract in a TSDoc comment, and the entry points and contracts a newcomer starts from carry an
// @example. Read with the TypeScript parser, not by pattern.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
/** The source folders whose exports must be documented. */
const FOLDERS = ['engine', 'adapters', 'nodes', 'cli', 'console'];

/**
 * The entry points and contracts whose TSDoc must hold an `@example`: the engine's, the gateway's
 * (the client a node sends with, the module a provider is) and the execution store's. The calendar's
 * contract joins this list when adapters/calendar/ lands.
 */
const ENTRY_POINTS = [
  'GatewayClient',
  'GatewayProviderModule',
  'Engine',
  'ExecutionRun',
  'loadFlowDirectory',
  'buildWebhookApp',
  'defineNode',
  'NodeRegistry',
  'ExecutionStore',
  'Scheduler',
];

interface ExportDoc {
  where: string;
  names: string[];
  doc: string | undefined;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') && !name.includes('.generated.') ? [path] : [];
  });
}

function declaredNames(statement: ts.Statement): string[] {
  if (ts.isVariableStatement(statement)) return statement.declarationList.declarations.map((d) => d.name.getText());
  const name = (statement as { name?: ts.Node }).name;
  return name ? [name.getText()] : ['default'];
}

/** Top-level exported declarations of one file, with their TSDoc text (undefined when none). */
function exportsOf(file: string): ExportDoc[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  return source.statements.flatMap((statement) => {
    const exported =
      ts.isExportAssignment(statement) ||
      (ts.canHaveModifiers(statement) && (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword));
    if (!exported) return [];
    const docs = ts.getJSDocCommentsAndTags(statement).filter(ts.isJSDoc);
    const { line } = source.getLineAndCharacterOfPosition(statement.getStart());
    return [
      {
        where: `${relative(ROOT, file)}:${line + 1}`,
        names: declaredNames(statement),
        doc: docs.length > 0 ? docs.map((d) => d.getText()).join('\n') : undefined,
      },
    ];
  });
}

const byFolder = new Map(FOLDERS.map((folder) => [folder, sourceFiles(join(ROOT, folder)).flatMap(exportsOf)]));
const all = [...byFolder.values()].flat();

describe('exports are documented', () => {
  it.each(FOLDERS)('finds the exports of %s/', (folder) => {
    expect(byFolder.get(folder)!.length).toBeGreaterThan(20);
  });

  it.each(FOLDERS)('every export of %s/ has a TSDoc comment', (folder) => {
    const undocumented = byFolder.get(folder)!.filter((e) => e.doc === undefined);
    expect(undocumented.map((e) => `${e.where} ${e.names.join(', ')}`)).toEqual([]);
  });

  it.each(ENTRY_POINTS)('%s carries an @example', (name) => {
    const entry = all.find((e) => e.names.includes(name));
    expect(entry, `${name} is exported from a source folder`).toBeDefined();
    expect(entry?.doc ?? '').toContain('@example');
  });
});
