import type { Command } from 'commander';
import type { NodeDefinition } from '../../engine/types.js';
import type { NodeRegistry } from '../../engine/registry.js';

type Prop = { type?: string; description?: string; default?: unknown; anyOf?: Prop[]; enum?: unknown[]; const?: unknown; items?: Prop };
type ObjectProp = Prop & { properties?: Record<string, Prop>; required?: string[] };

function typeName(p: Prop): string {
  if (p.anyOf) return p.anyOf.map(typeName).join(' | ');
  if (p.const !== undefined) return JSON.stringify(p.const);
  if (p.enum) return p.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (p.type === 'array' && p.items) return `${typeName(p.items)}[]`;
  return p.type ?? 'any';
}

/** A line per field of an object schema: name, type, required or default, description. */
function fieldLines(schema: ObjectProp, indent: string): string[] {
  return Object.entries(schema.properties ?? {}).map(([name, prop]) => {
    const required = schema.required?.includes(name) && prop.default === undefined ? ' (required)' : '';
    const fallback = prop.default !== undefined ? ` [default: ${JSON.stringify(prop.default)}]` : '';
    return `${indent}${name}: ${typeName(prop)}${required}${fallback} - ${prop.description ?? ''}`;
  });
}

/** One node type as text: description, child slots and a line per parameter. */
export function describeNode(def: NodeDefinition): string {
  const schema = JSON.parse(JSON.stringify(def.params)) as ObjectProp;
  const lines = [`${def.type}`, `  ${def.description}`];
  const fields = fieldLines(schema, '    ');
  if (fields.length) lines.push('  params:', ...fields);
  for (const [slot, decl] of Object.entries(def.children ?? {})) {
    lines.push(
      `  ${slot}: ${decl.shape === 'list' ? 'steps' : 'name -> steps'}${decl.required ? ' (required)' : ''} - ${decl.description}`,
    );
  }
  lines.push(`  output: ${def.output.description}`);
  return lines.join('\n');
}

/** The ways a flow starts (`trigger.webhook`, `trigger.schedule`) as text, from the flow schema of `registry`. */
export async function describeTriggers(registry: NodeRegistry): Promise<string> {
  const { buildFlowSchema } = await import('../../engine/flow-schema.js');
  const schema = buildFlowSchema(registry) as { properties: { trigger: ObjectProp } };
  const kinds = Object.entries(schema.properties.trigger.properties ?? {}).filter(([kind]) => kind !== 'input');
  return kinds
    .map(([kind, prop]) =>
      [`trigger.${kind}`, `  ${prop.description ?? ''}`, '  fields:', ...fieldLines(prop as ObjectProp, '    ')].join('\n'),
    )
    .join('\n\n');
}

/**
 * `leadflow nodes [--json]`: every node type with its description and parameters, then the trigger
 * kinds; `--json`: the definitions as one JSON array (type, description, params, children, output, examples).
 */
export function registerNodes(program: Command): void {
  program
    .command('nodes')
    .description('list every node type with its description and parameters')
    .option('--json', 'print the definitions as JSON (type, description, params schema, output, examples)')
    .action(async (opts: { json?: boolean }) => {
      const { defaultRegistry } = await import('../../nodes/index.js');
      const registry = defaultRegistry();
      const defs = registry.all();
      if (opts.json) {
        const out = defs.map((d) => ({
          type: d.type,
          description: d.description,
          params: d.params,
          children: d.children ?? {},
          output: d.output.description,
          examples: d.examples,
        }));
        process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
        return;
      }
      process.stdout.write(`${[...defs.map(describeNode), await describeTriggers(registry)].join('\n\n')}\n`);
    });
}
