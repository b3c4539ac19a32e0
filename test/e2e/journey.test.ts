// One lead through the three real flows of flows/ together, over HTTP (test/e2e/stack.ts): the form
// (short wait, first message sent one by one with the typing delay), a conversation whose memory
// starts with that first message, a burst of media (image, document, video) and text answered once
// in order, and the agent's transferir reaching the real handoff flow, after which the agent is
// silent. The flow-specific suites (intake, agent, handoff) cover each branch; this one covers the
// seams between them.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CLINIC_PHONE, forEachBackend, HUNTER_PHONE, INSTANCE_TOKEN, startStack, type Stack } from './stack.js';

const ROOT = join(import.meta.dirname, '../..');
const FIXTURES = join(ROOT, 'test/fixtures/uazapi');
const INTAKE_DELAY_MS = 400;
const TYPING_MIN_MS = 120;
const TYPING_MAX_MS = 180;
const LEAD = '5543999806366';

/** A tiny MP4 without audio made by ffmpeg, or null (with the reason printed) when ffmpeg is absent. */
function makeVideo(): Buffer | null {
  const dir = mkdtempSync(join(tmpdir(), 'leadflow-journey-video-'));
  try {
    const out = join(dir, 'v.mp4');
    execFileSync(
      'ffmpeg',
      ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=duration=1:size=160x120:rate=10', '-c:v', 'mpeg4', out],
      { timeout: 30_000, stdio: 'ignore' },
    );
    return readFileSync(out);
  } catch (err) {
    console.warn(
      `journey: ffmpeg unavailable (${(err as Error).message.split('\n')[0]}); the video is expected to become the video marker instead of frame descriptions`,
    );
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
const video = makeVideo();

let idSeq = 0;
/** A real gateway payload (test/fixtures/uazapi) from the lead to the seeded instance. */
function event(fixture: string, changes: { text?: string; messageid?: string } = {}): Record<string, any> {
  const body = JSON.parse(readFileSync(join(FIXTURES, fixture), 'utf8'));
  body.token = INSTANCE_TOKEN;
  body.owner = CLINIC_PHONE;
  const jid = `${LEAD}@s.whatsapp.net`;
  body.chat.wa_chatid = jid;
  const m = body.message;
  m.messageid = changes.messageid ?? `3EB0JOURNEY${String(++idSeq).padStart(9, '0')}`;
  m.chatid = jid;
  m.sender_pn = jid;
  m.fromMe = false;
  m.wasSentByApi = false;
  if (changes.text !== undefined) {
    m.text = changes.text;
    m.content = changes.text;
  }
  return body;
}

const userTurns = (request: any): string[] =>
  request.messages
    .filter((m: any) => m.role === 'user')
    .map((m: any) => (typeof m.content === 'string' ? m.content : JSON.stringify(m.content)));
const assistantTurns = (request: any): string[] =>
  request.messages.filter((m: any) => m.role === 'assistant' && typeof m.content === 'string' && m.content).map((m: any) => m.content);

forEachBackend('a lead through intake, agent and handoff', (backend) => {
  let stack: Stack;
  const sendsTo = (number: string) => stack.gateway.requestsTo('/send/text').filter((r) => r.body?.number === number);
  const memory = () =>
    stack.runtime.db.find('wf_chat_histories', {
      where: { clinica_id: stack.clinic.id, session_id: LEAD },
      order_by: [{ column: 'id', direction: 'asc' }],
    });
  const agentPost = async (body: unknown) => (await stack.post('/leadagent', body)).json();

  beforeAll(async () => {
    stack = await startStack({
      backend,
      flowsDir: join(ROOT, 'flows'),
      env: {
        LEADFLOW_FLOWS_DIR: join(ROOT, 'flows'),
        LEADFLOW_INTAKE_DELAY_MS: String(INTAKE_DELAY_MS),
        LEADFLOW_TYPING_MIN_MS: String(TYPING_MIN_MS),
        LEADFLOW_TYPING_MAX_MS: String(TYPING_MAX_MS),
        // The summary on the other fake, so it cannot race the agent's turn on one reply queue.
        LEADFLOW_MODEL_SUMMARY: 'anthropic:claude-haiku-4-5',
      },
    });
  });

  afterAll(async () => {
    await stack?.close();
  });

  it('the form: answered at once, the short wait, then the first message one paragraph at a time with the typing delay, and the Hunter alerted', async () => {
    stack.openai.queueChat({
      text: 'Olá, Maria! Aqui é a assistente da Clínica Sorriso.\\n\\nVi que você se interessou pelas lentes de contato dental.\\n\\nPosso te fazer umas perguntas?',
    });
    const posted = Date.now();
    const res = await stack.post('/form/intake', {
      nome: 'Maria Souza',
      telefone: '(43) 99980-6366',
      orcamento: 'Até R$ 3.000',
      clinica_id: String(stack.clinic.id),
    });
    expect(res.status).toBe(202);
    expect(Date.now() - posted).toBeLessThan(INTAKE_DELAY_MS);
    const { execution_id } = (await res.json()) as { execution_id: string };
    const done = await stack.engine.waitForEnd(execution_id);
    expect(done.status).toBe('success');

    const sends = sendsTo(LEAD);
    expect(sends.map((r) => r.body.text)).toEqual([
      'Olá, Maria! Aqui é a assistente da Clínica Sorriso.',
      'Vi que você se interessou pelas lentes de contato dental.',
      'Posso te fazer umas perguntas?',
    ]);
    expect(sends[0]!.at - posted).toBeGreaterThanOrEqual(INTAKE_DELAY_MS);
    for (const send of sends) {
      expect(send.body.delay).toBeGreaterThanOrEqual(TYPING_MIN_MS);
      expect(send.body.delay).toBeLessThanOrEqual(TYPING_MAX_MS);
    }
    // One by one: each message leaves after the gateway answered the previous one.
    for (let i = 1; i < sends.length; i++) expect(sends[i]!.at).toBeGreaterThanOrEqual(sends[i - 1]!.answeredAt!);
    expect(sendsTo(HUNTER_PHONE).map((r) => r.body.text)).toEqual(['🚨 Novo lead: Maria Souza | 5543999806366 | Até R$ 3.000']);
    const output = done.output as { form_to_first_message_ms: number };
    expect(output.form_to_first_message_ms).toBeGreaterThanOrEqual(INTAKE_DELAY_MS);
    expect(output.form_to_first_message_ms).toBeLessThan(120_000);
  });

  it("the lead's reply: the agent's memory starts with the intake's first message, the reply is cleaned, and the exchange is recorded both ways", async () => {
    stack.openai.reset();
    // A stray backslash, as models sometimes write, never reaches the lead.
    stack.openai.queueChat({ text: 'Que ótimo\\! Você já usou lentes antes?' });
    expect(await agentPost(event('text-conversation.json', { text: 'Oi! Sim, quero saber mais' }))).toEqual({ status: 'queued' });
    await stack.idle();
    const [request] = stack.openai.chatRequests();
    expect(assistantTurns(request)[0]).toBe(
      'Olá, Maria! Aqui é a assistente da Clínica Sorriso.\n\nVi que você se interessou pelas lentes de contato dental.\n\nPosso te fazer umas perguntas?',
    );
    expect(userTurns(request).at(-1)).toContain('Oi! Sim, quero saber mais');
    expect((await memory()).map((r) => [r.type, r.content])).toEqual([
      ['agent', assistantTurns(request)[0]],
      ['lead', 'Oi! Sim, quero saber mais'],
      ['agent', 'Que ótimo! Você já usou lentes antes?'],
    ]);
    expect(sendsTo(LEAD).at(-1)!.body.text).toBe('Que ótimo! Você já usou lentes antes?');
  });

  it('a burst of image, document, video and text: each medium turned into text, merged in order, one agent run and one reply', async () => {
    stack.openai.reset();
    const image = event('image-caption.json');
    const document = event('document.json');
    const clip = event('video.json');
    stack.gateway.setMedia(image.message.messageid, { mimetype: 'image/jpeg', bytes: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]) });
    stack.gateway.setMedia(document.message.messageid, { mimetype: 'application/pdf', bytes: Buffer.from('%PDF-1.4 fake pdf body') });
    stack.gateway.setMedia(clip.message.messageid, { mimetype: 'video/mp4', bytes: video ?? Buffer.from('not really a video') });
    stack.openai.queueChat(
      { text: 'Foto de um sorriso com dentes levemente amarelados.' },
      { text: 'Orçamento anterior: lentes em 10 dentes, R$ 15.000.' },
    );
    if (video) stack.openai.queueChat({ text: 'Vídeo curto com barras coloridas.' });
    stack.openai.queueChat({ text: 'Entendi tudo! Pelo que vi, as lentes resolvem isso.' });

    for (const body of [image, document, clip]) expect(await agentPost(body)).toEqual({ status: 'queued' });
    expect(await agentPost(event('text-conversation.json', { text: 'isso é o que eu tenho hoje' }))).toEqual({ status: 'queued' });
    await stack.idle();

    const chats = stack.openai.chatRequests();
    const agentRuns = chats.filter((c) => Array.isArray(c.tools) && c.tools.length > 0);
    expect(agentRuns).toHaveLength(1);
    const input = userTurns(agentRuns[0]).at(-1)!;
    const order = [
      '[imagem] Foto de um sorriso com dentes levemente amarelados.',
      'Legenda: É assim que meu sorriso está hoje',
      '[documento] Orçamento anterior: lentes em 10 dentes, R$ 15.000.',
      '[vídeo]',
      'isso é o que eu tenho hoje',
    ];
    const positions = order.map((piece) => input.indexOf(piece));
    expect(
      positions.every((p) => p >= 0),
      `${input}\nmissing one of ${JSON.stringify(order)}`,
    ).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    if (video) expect(input).toContain('Vídeo curto com barras coloridas.');
    const rows = await memory();
    const lastLead = rows.filter((r) => r.type === 'lead').at(-1)!;
    expect(lastLead.content).toContain('[documento] Orçamento anterior');
    expect(String(lastLead.content)).not.toContain('mensagem_do_lead');
    expect(rows.at(-1)).toMatchObject({ type: 'agent', content: 'Entendi tudo! Pelo que vi, as lentes resolvem isso.' });
  });

  it('transferir from the agent reaches the real handoff: flags set, the Hunter gets the summary, and the agent falls silent', async () => {
    stack.openai.reset();
    stack.anthropic.reset();
    stack.openai.queueChat(
      { tool_calls: [{ name: 'transferir', arguments: { motivo: 'Quer agendar uma avaliação', telefone: '5511900000000' } }] },
      { text: 'Perfeito! A Mariana vai falar com você agora.' },
    );
    stack.anthropic.queue({ text: 'Maria quer lentes de contato, mostrou fotos e um orçamento anterior e quer agendar uma avaliação.' });
    expect(await agentPost(event('text-conversation.json', { text: 'Quero agendar!' }))).toEqual({ status: 'queued' });
    await stack.idle();

    const lead = await stack.runtime.db.get('leads', { remotejid: LEAD });
    expect(lead).toMatchObject({ transferido: true, handoff_enviado: true });
    expect(lead!.handoff_at).toBeTruthy();
    expect(sendsTo(LEAD).at(-1)!.body.text).toBe('Perfeito! A Mariana vai falar com você agora.');
    const notification = sendsTo(HUNTER_PHONE).at(-1)!.body.text as string;
    expect(notification).toContain(`wa.me/${LEAD}`);
    expect(notification).toContain('Motivo: Quer agendar uma avaliação');
    expect(notification).toContain('Resumo: Maria quer lentes de contato');
    // The summary read the whole conversation as `{type}: {content}` lines, the first message included.
    const summaryPrompt = JSON.stringify(stack.anthropic.messageRequests()[0].messages);
    expect(summaryPrompt).toContain('agent: Olá, Maria! Aqui é a assistente da Clínica Sorriso.');
    expect(summaryPrompt).toContain('lead: Oi! Sim, quero saber mais');

    const repliesBefore = sendsTo(LEAD).length;
    expect(await agentPost(event('text-conversation.json', { text: 'Oi? Alguém aí?' }))).toEqual({
      status: 'ignored',
      reason: 'lead transferred',
    });
    await stack.idle();
    expect(sendsTo(LEAD)).toHaveLength(repliesBefore);
  });
});
