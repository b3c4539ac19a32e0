// gateway.download in real flows: bytes go to the media cache, only a handle to the execution.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { uazapiEventSchema } from '../../adapters/gateway/uazapi/event-schema.js';
import { InputValidationError } from '../../engine/errors/input-validation-error.js';
import { type FakeGateway, startFakeGateway } from '../fakes/fake-gateway.js';
import { makeEngine, runFlow, shutdownEngines, stepRecord, waitForEnd } from '../helpers/run-flow.js';
import { uazapiFixture } from './helpers/fixtures.js';
import { messagingRegistry, messagingServices, type MessagingServices } from './helpers/messaging-engine.js';

const TOKEN = 'inst-tok-dl-SECRET-42';
const AUDIO = Buffer.from('OggS-fake-voice-note-bytes-0123456789-abcdefghijklmnopqrstuvwxyz', 'utf8');
let fake: FakeGateway;
let services: MessagingServices;

beforeEach(async () => {
  fake = await startFakeGateway({ tokens: { [TOKEN]: '5511912345678' } });
  services = messagingServices([{ id: 1, clinica_id: 10, server_url: fake.url, token: TOKEN }]);
});

afterEach(async () => {
  await shutdownEngines();
  await fake.close();
});

const downloadFlow = `
name: media
steps:
  - id: audio
    type: gateway.download
    params: { instance_id: 1, message_id: "{{ trigger.body.message.messageid }}", file_name: "{{ trigger.body.message.content.fileName }}" }
`;

function run(body: object, dryRun = false) {
  return runFlow(downloadFlow, {
    body: body as never,
    engine: { registry: messagingRegistry, services: services as never },
    start: { dryRun },
  });
}

describe('gateway.download', () => {
  it('puts the bytes in the media cache and outputs {mimetype, size, media_ref}, never the bytes', async () => {
    fake.setMedia('3EB0AUD10000000000A1', { mimetype: 'audio/ogg; codecs=opus', bytes: AUDIO });
    const { record } = await run(uazapiFixture('audio-ptt'));
    expect(record.status).toBe('success');
    const output = stepRecord(record, 'audio').output as any;
    expect(output).toEqual({ mimetype: 'audio/ogg; codecs=opus', size: AUDIO.length, media_ref: expect.stringMatching(/^media_/) });
    expect(services.media.get(output.media_ref)?.bytes.equals(AUDIO)).toBe(true);
    expect(fake.requests[0]!.body).toEqual({ id: '3EB0AUD10000000000A1', return_base64: true, return_link: false });
    const stored = JSON.stringify(record);
    expect(stored).not.toContain(AUDIO.toString('base64'));
    expect(stored).not.toContain(AUDIO.toString('utf8'));
    expect(stored).not.toContain(TOKEN);
    expect(record.outbound).toEqual([
      expect.objectContaining({
        kind: 'gateway',
        url: `${fake.url}/message/download`,
        headers: { token: '***', 'content-type': 'application/json' },
        body: { id: '3EB0AUD10000000000A1', return_base64: true, return_link: false },
        performed: true,
      }),
    ]);
  });

  it("keeps a document's file name with the bytes (none for media without one)", async () => {
    const pdf = Buffer.from('%PDF-1.4 fake');
    fake.setMedia('3EB0DOC40000000000D4', { mimetype: 'application/pdf', bytes: pdf });
    const doc = await run(uazapiFixture('document'));
    const ref = (stepRecord(doc.record, 'audio').output as any).media_ref;
    expect(services.media.take(ref)).toEqual({ bytes: pdf, mimetype: 'application/pdf', filename: 'orcamento-anterior.pdf' });
    fake.setMedia('3EB0AUD10000000000A1', { mimetype: 'audio/ogg', bytes: AUDIO });
    const audio = await run(uazapiFixture('audio-ptt'));
    expect(services.media.take((stepRecord(audio.record, 'audio').output as any).media_ref)).toEqual({
      bytes: AUDIO,
      mimetype: 'audio/ogg',
    });
  });

  it('passes a gateway transcription through', async () => {
    fake.setMedia('3EB0AUD10000000000A1', { mimetype: 'audio/mpeg', bytes: AUDIO, transcription: 'quero marcar uma avaliação' });
    const { record } = await run(uazapiFixture('audio-ptt'));
    expect(stepRecord(record, 'audio').output).toMatchObject({ transcription: 'quero marcar uma avaliação' });
  });

  it('dry-run: records the call and downloads nothing', async () => {
    fake.setMedia('3EB0AUD10000000000A1', { mimetype: 'audio/ogg', bytes: AUDIO });
    const { record } = await run(uazapiFixture('audio-ptt'), true);
    expect(fake.requests).toHaveLength(0);
    expect(services.media.size).toBe(0);
    expect(record.outbound).toEqual([
      expect.objectContaining({ performed: false, headers: { token: '***', 'content-type': 'application/json' } }),
    ]);
    expect(stepRecord(record, 'audio').output).toEqual({ mimetype: null, size: 0, media_ref: null, dry_run: true });
  });

  it('an unknown message fails the step with status 404 and the gateway body', async () => {
    const { record } = await run(uazapiFixture('audio-ptt'));
    expect(record.status).toBe('failed');
    expect(stepRecord(record, 'audio').error).toMatchObject({
      name: 'GatewayHttpError',
      status: 404,
      body: { error: 'Message not found' },
    });
    expect(fake.requests).toHaveLength(1);
  });

  it('without a media service: fails before calling the gateway', async () => {
    const { record } = await runFlow(downloadFlow, {
      body: uazapiFixture('audio-ptt'),
      engine: { registry: messagingRegistry, services: { gateway: services.gateway, instances: services.instances } },
    });
    expect(stepRecord(record, 'audio').error?.message).toMatch(/services\.media is missing/);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('uazapiEventSchema as a flow trigger.input', () => {
  const flow = `
name: leadagent
trigger:
  input: ${JSON.stringify(uazapiEventSchema)}
steps:
  - id: audio
    type: gateway.download
    params: { instance_id: 1, message_id: "{{ trigger.body.message.messageid }}" }
`;

  it('accepts a real event and refuses a malformed one with paths', async () => {
    fake.setMedia('3EB0AUD10000000000A1', { mimetype: 'audio/ogg', bytes: AUDIO });
    const engine = makeEngine(flow, { registry: messagingRegistry, services: services as never });
    const handle = await engine.start('leadagent', { body: uazapiFixture('audio-ptt') });
    expect((await waitForEnd(engine, handle.id)).status).toBe('success');
    const bad = uazapiFixture('audio-ptt');
    delete bad.message.messageid;
    const err = await engine.start('leadagent', { body: bad }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputValidationError);
    expect((err as InputValidationError).details).toContainEqual({ path: 'message.messageid', message: 'is required' });
  });
});
