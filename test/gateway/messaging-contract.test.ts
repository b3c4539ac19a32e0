// The node definition contract (see test/flow-schema.test.ts) for the messaging node types, checked
// here too while they are not yet in nodes/index.ts: descriptions, examples and defaults per
// parameter, examples valid for their parameter, every step example loads.
import AjvModule from 'ajv';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { buildFlowSchema } from '../../engine/flow-schema.js';
import { loadFlowText } from '../../engine/load/loader.js';
import { formatProblem } from '../../engine/load/yaml-source.js';
import { messagingNodes } from '../../nodes/messaging/index.js';
import { messagingRegistry } from './helpers/messaging-engine.js';

const Ajv = AjvModule.default ?? AjvModule;
const fragments = new Ajv({ allErrors: true, strict: false }).addSchema(buildFlowSchema(messagingRegistry));
type Schema = Record<string, any>;

describe('messaging node definitions', () => {
  it('exports gateway.parse (read-only), gateway.send and gateway.download (outbound), gateway.forget and transcript.record', () => {
    expect(messagingNodes.map((d) => d.type)).toEqual([
      'gateway.parse',
      'gateway.send',
      'gateway.download',
      'gateway.forget',
      'transcript.record',
    ]);
    expect(messagingNodes.filter((d) => d.outbound === true).map((d) => d.type)).toEqual(['gateway.send', 'gateway.download']);
    expect(messagingNodes.find((d) => d.type === 'gateway.parse')!.readOnly).toBe(true);
  });

  for (const def of messagingNodes) {
    describe(def.type, () => {
      const params = JSON.parse(JSON.stringify(def.params)) as Schema;
      const required = new Set<string>(params.required ?? []);

      it('closed params object; every parameter described with examples; optional ones defaulted', () => {
        expect(params.type).toBe('object');
        expect(params.additionalProperties).toBe(false);
        for (const [name, prop] of Object.entries<Schema>(params.properties)) {
          expect(String(prop.description ?? '').trim(), `${name} description`).not.toBe('');
          expect(Array.isArray(prop.examples) && prop.examples.length > 0, `${name} examples`).toBe(true);
          if (!required.has(name)) expect('default' in prop, `${name} default`).toBe(true);
          const validate = fragments.compile({
            $ref: `https://leadflow.local/flow.schema.json#/$defs/step.${def.type}/properties/params/properties/${name}`,
          });
          for (const example of prop.examples) expect(validate(example), `${name} example ${JSON.stringify(example)}`).toBe(true);
        }
      });

      for (const example of def.examples) {
        it(`example "${example.title}" loads`, () => {
          const { problems } = loadFlowText(
            'x.yaml',
            stringify({ name: 'x', steps: [{ id: 'example', ...example.step }] }),
            messagingRegistry,
          );
          expect(problems.map(formatProblem)).toEqual([]);
        });
      }
    });
  }

  it('rejects a wrong-typed literal at load time', () => {
    const { problems } = loadFlowText(
      'x.yaml',
      stringify({
        name: 'x',
        steps: [{ id: 's', type: 'gateway.send', params: { instance_id: 'one', number: '5511987654321', messages: 'oi' } }],
      }),
      messagingRegistry,
    );
    expect(problems.map((p) => p.path.join('.'))).toContain('steps.0.params.instance_id');
  });
});
