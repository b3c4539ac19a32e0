import { describe, expect, it } from 'vitest';
import { formatReply } from '../../nodes/lead/text-split.js';
import { runFlow, shutdownEngines } from '../helpers/run-flow.js';
import { afterEach } from 'vitest';

afterEach(shutdownEngines);

describe('reply formatting (text.split)', () => {
  it('turns escaped line breaks into real ones and splits paragraphs into messages in order', () => {
    expect(formatReply('Olá, Ana!\\n\\nVi que você se interessou.\\nPosso ajudar?')).toEqual({
      text: 'Olá, Ana!\n\nVi que você se interessou.\nPosso ajudar?',
      messages: ['Olá, Ana!', 'Vi que você se interessou.\nPosso ajudar?'],
    });
  });

  it('removes stray isolated backslashes and keeps a single paragraph as one message', () => {
    expect(formatReply('Claro\\, posso \\sim ajudar.').messages).toEqual(['Claro, posso sim ajudar.']);
  });

  it('drops empty paragraphs and surrounding space, and handles real CRLF breaks', () => {
    expect(formatReply('\r\n\r\nUm.\r\n\r\n\r\n  \r\nDois.  \n\n').messages).toEqual(['Um.', 'Dois.']);
  });

  it('runs as a node', async () => {
    const { record } = await runFlow(
      `
name: split
steps:
  - id: split
    type: text.split
    params: { text: "{{ trigger.body.text }}" }
`,
      { body: { text: 'A\\n\\nB' } },
    );
    expect(record.output).toEqual({ text: 'A\n\nB', messages: ['A', 'B'] });
  });
});

describe('phone.normalize', () => {
  it('normalises form input and lists the Brazilian variants, never adding a 9 to a landline', async () => {
    const flow = `
name: phone
steps:
  - id: phone
    type: phone.normalize
    params: { input: "{{ trigger.body.p }}" }
`;
    const mobile = await runFlow(flow, { body: { p: '(43) 99980-6366' } });
    expect(mobile.record.output).toMatchObject({ digits: '5543999806366', valid: true });
    expect((mobile.record.output as { variants: string[] }).variants).toEqual(expect.arrayContaining(['5543999806366', '554399806366']));
    const landline = await runFlow(flow, { body: { p: '(45) 3278-2153' } });
    const variants = (landline.record.output as { variants: string[] }).variants;
    expect(variants[0]).toBe('554532782153');
    expect(variants.some((v) => v.includes('4593278'))).toBe(false);
    const junk = await runFlow(flow, { body: { p: 'abc' } });
    expect(junk.record.output).toEqual({ digits: null, variants: [], valid: false });
  });
});
