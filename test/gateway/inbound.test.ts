// parseUazapiEvent over the real-shaped fixtures (reference §1.2, §5 checklist).
import AjvModule from 'ajv';
import { describe, expect, it } from 'vitest';
import { UazapiEventError } from '../../adapters/gateway/uazapi/errors.js';
import { isIgnored, parseUazapiEvent, type NormalizedMessage } from '../../adapters/gateway/uazapi/events.js';
import { uazapiEventSchema } from '../../adapters/gateway/uazapi/event-schema.js';
import { schemaProblems } from '../../engine/run/param-validator.js';
import { uazapiFixture } from './helpers/fixtures.js';

const TOKEN = '0f3c9a1e-7b2d-4c55-9e10-fixture-token';

function parsed(name: string): NormalizedMessage {
  const result = parseUazapiEvent(uazapiFixture(name));
  if (isIgnored(result)) throw new Error(`${name} was ignored: ${result.ignored}`);
  return result;
}

describe('parseUazapiEvent', () => {
  it('Conversation text: content is a plain string; phone from chatid, not from the @lid sender', () => {
    expect(parsed('text-conversation')).toEqual({
      instance_token: TOKEN,
      instance_name: 'acme-sdr',
      base_url: 'https://acme.uazapi.com',
      phone: '5511987654321',
      chat_id: '5511987654321@s.whatsapp.net',
      message_id: '3EB0A1B2C3D4E5F6A7B8',
      from_me: false,
      sent_by_api: false,
      is_group: false,
      kind: 'text',
      text: 'Oi, vi o anúncio',
      sender_name: 'Maria Souza',
      lid: '180182702931994@lid',
      timestamp_ms: 1765454975000,
    });
  });

  it('ExtendedTextMessage: content is an object; text read from text, else content.text', () => {
    const msg = parsed('text-extended');
    expect(msg).toMatchObject({
      kind: 'text',
      text: 'Quanto custa? https://clinica.example/clareamento',
      message_id: '3EB0C0FFEE1234567890',
    });
    const body = uazapiFixture('text-extended');
    body.message.text = '';
    expect(parseUazapiEvent(body)).toMatchObject({ text: 'Quanto custa? https://clinica.example/clareamento' });
  });

  it('PTT audio: kind audio, mimetype from content, empty text', () => {
    expect(parsed('audio-ptt')).toMatchObject({
      kind: 'audio',
      mimetype: 'audio/ogg; codecs=opus',
      text: '',
      message_id: '3EB0AUD10000000000A1',
    });
  });

  it('image with a caption only in content.caption', () => {
    expect(parsed('image-caption')).toMatchObject({ kind: 'image', mimetype: 'image/jpeg', text: 'É assim que meu sorriso está hoje' });
  });

  it('video', () => {
    const msg = parsed('video');
    expect(msg).toMatchObject({ kind: 'video', mimetype: 'video/mp4', text: '' });
    expect(msg.file_name).toBeUndefined();
  });

  it('document keeps its fileName', () => {
    expect(parsed('document')).toMatchObject({ kind: 'document', mimetype: 'application/pdf', file_name: 'orcamento-anterior.pdf' });
  });

  it('group message: is_group, chat_id is the group, phone is the participant (sender_pn)', () => {
    expect(parsed('group-text')).toMatchObject({
      is_group: true,
      chat_id: '120363025246125486@g.us',
      phone: '5521998877665',
      text: 'Bom dia, pessoal',
    });
  });

  it('a @g.us chat counts as a group even when isGroup is missing', () => {
    const body = uazapiFixture('group-text');
    delete body.message.isGroup;
    expect(parseUazapiEvent(body)).toMatchObject({ is_group: true });
  });

  it('from me, sent by the API: flagged (the flow drops it); phone is the lead (chatid), not the owner', () => {
    expect(parsed('from-me-api')).toMatchObject({ from_me: true, sent_by_api: true, phone: '5511987654321', lid: '180182702931994@lid' });
  });

  it('from me, typed by an operator: from_me without sent_by_api, text kept as typed', () => {
    expect(parsed('from-me-operator')).toMatchObject({ from_me: true, sent_by_api: false, phone: '5511987654321', text: '  Destrans ' });
  });

  it('LID sender (real shape): phone from chatid, LID kept as alias', () => {
    const msg = parsed('lid-sender');
    expect(msg.phone).toBe('5562991234567');
    expect(msg.lid).toBe('207654321098765@lid');
  });

  it('LID chat and sender: phone from sender_pn, never from the LID digits', () => {
    const msg = parsed('lid-chatid-sender-pn');
    expect(msg.phone).toBe('5562991234567');
    expect(msg.chat_id).toBe('207654321098765@lid');
  });

  it('only LIDs (no sender_pn): ignored rather than taking LID digits as a phone', () => {
    const body = uazapiFixture('lid-chatid-sender-pn');
    delete body.message.sender_pn;
    expect(parseUazapiEvent(body)).toEqual({ ignored: 'no phone number in the event (LID only)' });
  });

  it("from me in a LID chat: the owner's sender_pn is not taken as the lead's phone", () => {
    const body = uazapiFixture('from-me-operator');
    body.message.chatid = '180182702931994@lid';
    body.chat.wa_chatid = '180182702931994@lid';
    expect(parseUazapiEvent(body)).toMatchObject({ ignored: expect.any(String) });
  });

  it('legacy 12-digit Brazilian JID: phone kept exactly as WhatsApp has it', () => {
    expect(parsed('legacy-12-digit')).toMatchObject({ phone: '554399806366', chat_id: '554399806366@s.whatsapp.net' });
  });

  it('a device suffix in the JID is dropped', () => {
    const body = uazapiFixture('text-conversation');
    body.message.chatid = '5511987654321:12@s.whatsapp.net';
    expect(parseUazapiEvent(body)).toMatchObject({ phone: '5511987654321' });
  });

  it('EventType other than messages is ignored with the reason', () => {
    expect(parseUazapiEvent(uazapiFixture('event-messages-update'))).toEqual({ ignored: 'event "messages_update" is not a message' });
  });

  it('status broadcasts are ignored', () => {
    const body = uazapiFixture('text-conversation');
    body.message.chatid = 'status@broadcast';
    expect(parseUazapiEvent(body)).toEqual({ ignored: 'status or broadcast message' });
  });

  it('a missing top-level token parses with an empty instance_token (the auth check rejects it, not the shape)', () => {
    expect(parsed('missing-token').instance_token).toBe('');
  });

  it('messageType is matched case-insensitively and mediaType is the fallback', () => {
    const body = uazapiFixture('audio-ptt');
    body.message.messageType = 'audio';
    expect(parseUazapiEvent(body)).toMatchObject({ kind: 'audio' });
    body.message.messageType = 'SomethingNew';
    body.message.mediaType = 'myaudio';
    expect(parseUazapiEvent(body)).toMatchObject({ kind: 'audio' });
    body.message.mediaType = '';
    body.message.type = 'media';
    expect(parseUazapiEvent(body)).toMatchObject({ kind: 'other' });
  });

  it('messageTimestamp is milliseconds; a seconds value is scaled', () => {
    const body = uazapiFixture('text-conversation');
    body.message.messageTimestamp = 1765454975;
    expect(parseUazapiEvent(body)).toMatchObject({ timestamp_ms: 1765454975000 });
  });

  it("rejects a malformed body with each problem's path", () => {
    const body = uazapiFixture('text-conversation');
    delete body.message.chatid;
    body.message.fromMe = 'yes';
    let error: unknown;
    try {
      parseUazapiEvent(body);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(UazapiEventError);
    expect((error as UazapiEventError).details).toEqual(
      expect.arrayContaining([{ path: 'message.chatid', message: 'is required' }, expect.objectContaining({ path: 'message.fromMe' })]),
    );
    expect(() => parseUazapiEvent({ event: 'messages.upsert', data: {} })).toThrow(/EventType is required/);
    expect(() => parseUazapiEvent({ EventType: 'messages' })).toThrow(/message is required/);
    expect(() => parseUazapiEvent('text')).toThrow(UazapiEventError);
  });
});

describe('uazapiEventSchema', () => {
  const Ajv = AjvModule.default ?? AjvModule;

  it('is valid draft-07 under ajv strict mode', () => {
    const ajv = new Ajv({ strict: true });
    expect(() => ajv.compile(uazapiEventSchema)).not.toThrow();
  });

  it('works as a trigger.input: every fixture passes, a wrapped (n8n-style) body gets paths', () => {
    for (const name of [
      'text-conversation',
      'text-extended',
      'audio-ptt',
      'image-caption',
      'video',
      'document',
      'group-text',
      'from-me-api',
      'from-me-operator',
      'lid-sender',
      'lid-chatid-sender-pn',
      'legacy-12-digit',
      'event-messages-update',
      'missing-token',
    ]) {
      expect(schemaProblems(uazapiEventSchema, uazapiFixture(name)), name).toEqual([]);
    }
    expect(schemaProblems(uazapiEventSchema, { event: 'messages', instance: 'x', data: {} })).toContainEqual({
      path: 'EventType',
      message: 'is required',
    });
  });
});
