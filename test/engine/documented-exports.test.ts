// Every export of engine/ states its contract in a TSDoc comment, and the entry points a newcomer
// starts from carry an @example (issue 11). Read with the TypeScript parser, not by pattern.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const ENGINE = join(ROOT, 'engine');

/** The entry points whose TSDoc must hold an `@example`. */
const ENTRY_POINTS = [
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
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
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

const all = sourceFiles(ENGINE).flatMap(exportsOf);

describe('engine exports are documented', () => {
  it('finds the engine exports', () => {
    expect(all.length).toBeGreaterThan(100);
  });

  it('every export has a TSDoc comment', () => {
    expect(all.filter((e) => e.doc === undefined).map((e) => `${e.where} ${e.names.join(', ')}`)).toEqual([]);
  });

  it.each(ENTRY_POINTS)('%s carries an @example', (name) => {
    const entry = all.find((e) => e.names.includes(name));
    expect(entry, `${name} is exported from engine/`).toBeDefined();
    expect(entry?.doc ?? '').toContain('@example');
  });
});
