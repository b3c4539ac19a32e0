// Trigger input problems name the titled anyOf / oneOf alternative each belongs to and list the
// alternatives (engine/run/schema-alternatives.ts through schemaProblems); untitled alternatives keep
// ajv's words; a problem is listed once.
import { describe, expect, it } from 'vitest';
import { schemaProblems } from '../../engine/run/param-validator.js';

const SHAPES = {
  anyOf: [
    {
      title: 'generic',
      type: 'object',
      required: ['nome', 'id'],
      properties: { id: { anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^[0-9]+$' }] } },
    },
    { title: 'typeform', type: 'object', required: ['form_response'] },
  ],
};

describe('input problems and alternatives', () => {
  it('name the alternative of each problem, the innermost titled one, and the alternatives there are', () => {
    expect(schemaProblems(SHAPES, { nome: 'x', id: 'abc' })).toEqual([
      { path: 'id', message: 'must be integer (alternative "generic")' },
      { path: 'id', message: 'must match pattern "^[0-9]+$" (alternative "generic")' },
      { path: 'id', message: 'must match a schema in anyOf (alternative "generic")' },
      { path: 'form_response', message: 'is required (alternative "typeform")' },
      { path: '(body)', message: 'must match one of the alternatives: generic, typeform' },
    ]);
    expect(schemaProblems(SHAPES, { nome: 'x', id: 7 })).toEqual([]);
  });

  it('say "exactly one" for oneOf, titles under a property too', () => {
    const schema = {
      type: 'object',
      properties: {
        contact: {
          oneOf: [
            { title: 'phone', type: 'object', required: ['phone'] },
            { title: 'email', type: 'object', required: ['email'] },
          ],
        },
      },
    };
    expect(schemaProblems(schema, { contact: {} })).toEqual([
      { path: 'contact.phone', message: 'is required (alternative "phone")' },
      { path: 'contact.email', message: 'is required (alternative "email")' },
      { path: 'contact', message: 'must match exactly one of the alternatives: phone, email' },
    ]);
    expect(schemaProblems(schema, { contact: { phone: 1, email: 2 } })).toEqual([
      { path: 'contact', message: 'must match exactly one of the alternatives: phone, email' },
    ]);
  });

  it("keep ajv's words where an alternative has no title, and list a problem once", () => {
    const untitled = { anyOf: [{ type: 'object' }, { type: 'object', required: ['a'] }, { type: 'string' }] };
    expect(schemaProblems(untitled, [])).toEqual([
      { path: '(body)', message: 'must be object' },
      { path: '(body)', message: 'must be string' },
      { path: '(body)', message: 'must match a schema in anyOf' },
    ]);
  });
});
