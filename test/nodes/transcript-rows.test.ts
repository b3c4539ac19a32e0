// The rows a gateway.send step's output stands for in the transcript (nodes/messaging/lib/transcript-rows.ts).
import { describe, expect, it } from 'vitest';
import { sentRows } from '../../nodes/messaging/lib/transcript-rows.js';

describe('sentRows', () => {
  it('one row per paragraph that went, blank texts skipped, with its provider id and time', () => {
    const rows = sentRows({
      messages: ['Oi!', '  ', 'Tudo bem?'],
      output: {
        sent: 2,
        sent_as: 'text',
        results: [
          { messageid: 'm1', delay: 0, at: '2026-11-28T12:00:00.000Z' },
          { messageid: null, delay: 0, at: '2026-11-28T12:00:02.000Z' },
        ],
      },
      chave: 'resposta:X',
      autor: 'agente',
    });
    expect(rows).toEqual([
      {
        direcao: 'saida',
        autor: 'agente',
        autor_nome: null,
        tipo: 'texto',
        conteudo: 'Oi!',
        chave: 'resposta:X:0',
        provider_message_id: 'm1',
        status: 'enviada',
        at: '2026-11-28T12:00:00.000Z',
      },
      {
        direcao: 'saida',
        autor: 'agente',
        autor_nome: null,
        tipo: 'texto',
        conteudo: 'Tudo bem?',
        chave: 'resposta:X:1',
        provider_message_id: null,
        status: null,
        at: '2026-11-28T12:00:02.000Z',
      },
    ]);
  });

  it('a send cut short records only what went', () => {
    const rows = sentRows({ messages: ['a', 'b', 'c'], output: { sent: 1, results: [{ messageid: 'm1' }] }, chave: 'k' });
    expect(rows.map((r) => r.conteudo)).toEqual(['a']);
  });

  it('the template that went instead: one modelo row by sistema with the text the lead saw', () => {
    const rows = sentRows({
      messages: ['Oi, Maria!', 'Ainda quer conversar?'],
      output: { sent: 1, sent_as: 'template', text: 'Oi, Maria! Ainda quer conversar com a gente?', results: [{ messageid: 'wamid.T' }] },
      chave: 'acompanhamento:E:0',
      autor: 'agente',
      autor_nome: 'Acompanhamento',
    });
    expect(rows).toEqual([
      {
        direcao: 'saida',
        autor: 'sistema',
        autor_nome: 'Acompanhamento',
        tipo: 'modelo',
        conteudo: 'Oi, Maria! Ainda quer conversar com a gente?',
        chave: 'acompanhamento:E:0:0',
        provider_message_id: 'wamid.T',
        status: 'enviada',
        at: null,
      },
    ]);
  });
});
