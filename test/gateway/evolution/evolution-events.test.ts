// parseEvolutionEvent over the Evolution fixtures (test/fakes/evolution-fixtures/events.ts): each
// message kind, every key layout of 2.3.x / 2.4.0 (phone never taken from a @lid), groups, the
// clinic's phone vs API sends, events that are not messages, and malformed bodies (422 details).
import { describe, expect, it } from 'vitest';
import { EvolutionEventError } from '../../../adapters/gateway/evolution/errors.js';
import { evolutionEventSchema } from '../../../adapters/gateway/evolution/event-schema.js';
import { type EvolutionMessage, isIgnoredEvolutionEvent, parseEvolutionEvent } from '../../../adapters/gateway/evolution/events.js';
import { schemaProblems } from '../../../engine/run/param-validator.js';
import { type EvolutionFixtureKind, evolutionEvent } from '../../fakes/evolution-fixtures/events.js';

const NOW = 1_800_000_000_000;

function parsed(body: unknown): EvolutionMessage {
  const result = parseEvolutionEvent(body, NOW);
  if (isIgnoredEvolutionEvent(result)) throw new Error(`ignored: ${result.ignored}`);
  return result;
}

function problems(body: unknown): Array<{ path: string; message: string }> {
  try {
    parseEvolutionEvent(body, NOW);
  } catch (err) {
    expect(err).toBeInstanceOf(EvolutionEventError);
    expect((err as EvolutionEventError).status).toBe(422);
    return (err as EvolutionEventError).details;
  }
  throw new Error('expected an EvolutionEventError');
}

describe('parseEvolutionEvent: message kinds', () => {
  it('text (conversation, 2.3.7 key): every field of the normalised message', () => {
    expect(parsed(evolutionEvent('text'))).toEqual({
      provider: 'evolution',
      instance_name: 'clinica-aurora',
      base_url: 'https://evo.example.com',
      phone: '554399806366',
      chat_id: '554399806366@s.whatsapp.net',
      message_id: '3A5F1C2B9D8E7F6A5B4C',
      from_me: false,
      sent_by_api: false,
      is_group: false,
      kind: 'text',
      text: 'Oi, vi o anúncio do clareamento',
      sender_name: 'Maria Souza',
      timestamp_ms: 1773050145000,
    });
  });

  it('extendedTextMessage (servers before the conversation rewrite): text from .text', () => {
    expect(parsed(evolutionEvent('extended-text'))).toMatchObject({
      kind: 'text',
      text: 'Quanto custa? https://clinica.example/clareamento',
      message_id: '3A6B2C3D4E5F60718293',
    });
    expect(parsed(evolutionEvent('extended-text')).media_ref).toBeUndefined();
  });

  it('voice note: kind audio, mimetype, no text, media_ref = the message id', () => {
    expect(parsed(evolutionEvent('audio'))).toMatchObject({
      kind: 'audio',
      mimetype: 'audio/ogg; codecs=opus',
      text: '',
      message_id: '3A7C3D4E5F6071829304',
      media_ref: '3A7C3D4E5F6071829304',
    });
  });

  it('image with caption, video with caption, PDF with file name and caption, sticker', () => {
    expect(parsed(evolutionEvent('image'))).toMatchObject({
      kind: 'image',
      mimetype: 'image/jpeg',
      text: 'Foto do meu sorriso',
      media_ref: '3A8D4E5F607182930415',
    });
    expect(parsed(evolutionEvent('video'))).toMatchObject({ kind: 'video', mimetype: 'video/mp4', text: 'Olha o vídeo' });
    expect(parsed(evolutionEvent('document'))).toMatchObject({
      kind: 'document',
      mimetype: 'application/pdf',
      file_name: 'exame.pdf',
      text: 'meu exame',
      media_ref: '3AAF60718293A4152637',
    });
    expect(parsed(evolutionEvent('sticker'))).toMatchObject({
      kind: 'sticker',
      mimetype: 'image/webp',
      text: '',
      media_ref: '3AB0718293A4B5263748',
    });
  });

  it('wrappers are unwrapped: ephemeral text, view-once image, documentWithCaptionMessage', () => {
    const ephemeral = evolutionEvent('text');
    ephemeral.data.message = { ephemeralMessage: { message: { extendedTextMessage: { text: 'some em 7 dias' } } } };
    ephemeral.data.messageType = 'ephemeralMessage';
    expect(parsed(ephemeral)).toMatchObject({ kind: 'text', text: 'some em 7 dias' });

    const viewOnce = evolutionEvent('image');
    viewOnce.data.message = { viewOnceMessageV2: { message: { imageMessage: viewOnce.data.message.imageMessage } } };
    viewOnce.data.messageType = 'viewOnceMessageV2';
    expect(parsed(viewOnce)).toMatchObject({ kind: 'image', text: 'Foto do meu sorriso', media_ref: '3A8D4E5F607182930415' });

    const captioned = evolutionEvent('document');
    captioned.data.message = { documentWithCaptionMessage: { message: { documentMessage: captioned.data.message.documentMessage } } };
    captioned.data.messageType = 'documentWithCaptionMessage';
    expect(parsed(captioned)).toMatchObject({ kind: 'document', file_name: 'exame.pdf', text: 'meu exame' });
  });

  it('round video note (ptvMessage) is a video; a reaction or location is other, without media_ref', () => {
    const ptv = evolutionEvent('video');
    ptv.data.message = { ptvMessage: { ...ptv.data.message.videoMessage, caption: undefined } };
    ptv.data.messageType = 'ptvMessage';
    expect(parsed(ptv)).toMatchObject({ kind: 'video', text: '', media_ref: ptv.data.key.id });

    const reaction = evolutionEvent('text');
    reaction.data.message = { reactionMessage: { key: { id: '3EB0AAAA' }, text: '👍' } };
    reaction.data.messageType = 'reactionMessage';
    const out = parsed(reaction);
    expect(out).toMatchObject({ kind: 'other', text: '' });
    expect(out.media_ref).toBeUndefined();

    const location = evolutionEvent('text');
    location.data.message = { locationMessage: { degreesLatitude: -23.5, degreesLongitude: -46.6 } };
    location.data.messageType = 'locationMessage';
    expect(parsed(location)).toMatchObject({ kind: 'other' });
  });

  it('messageType is a hint: the content present decides when they disagree or it is missing', () => {
    const body = evolutionEvent('audio');
    delete body.data.messageType;
    expect(parsed(body)).toMatchObject({ kind: 'audio' });
    const odd = evolutionEvent('text');
    odd.data.messageType = 'constructor';
    expect(parsed(odd)).toMatchObject({ kind: 'text' });
    const lying = evolutionEvent('text');
    lying.data.messageType = 'imageMessage';
    expect(parsed(lying)).toMatchObject({ kind: 'text', text: 'Oi, vi o anúncio do clareamento' });
  });

  it('timestamp: seconds to ms; numeric string and Long accepted; ms kept; absent -> now', () => {
    const at = (value: unknown) => {
      const body = evolutionEvent('text');
      body.data.messageTimestamp = value;
      if (value === undefined) delete body.data.messageTimestamp;
      return parsed(body).timestamp_ms;
    };
    expect(at(1773050145)).toBe(1773050145000);
    expect(at('1773050145')).toBe(1773050145000);
    expect(at({ low: 1773050145, high: 0, unsigned: false })).toBe(1773050145000);
    expect(at(1773050145123)).toBe(1773050145123);
    expect(at(undefined)).toBe(NOW);
    expect(at(0)).toBe(NOW);
  });
});

describe('parseEvolutionEvent: phone and LID', () => {
  it('2.3.5/2.3.6: remoteJid is a @lid, the phone comes from remoteJidAlt; the LID is kept', () => {
    expect(parsed(evolutionEvent('lid-alt'))).toMatchObject({
      phone: '554399806366',
      chat_id: '180182702931994@lid',
      lid: '180182702931994@lid',
    });
  });

  it('2.4.0-rc: remoteJid is the phone, remoteJidAlt the LID', () => {
    expect(parsed(evolutionEvent('lid-pn-swapped'))).toMatchObject({ phone: '554399806366', lid: '180182702931994@lid' });
  });

  it('2.3.0-2.3.4: the phone from senderPn, and from previousRemoteJid', () => {
    expect(parsed(evolutionEvent('sender-pn'))).toMatchObject({ phone: '554399806366', lid: '180182702931994@lid' });
    const body = evolutionEvent('sender-pn');
    body.data.key = { remoteJid: '180182702931994@lid', previousRemoteJid: '5511987654321@s.whatsapp.net', fromMe: false, id: 'X1' };
    expect(parsed(body).phone).toBe('5511987654321');
  });

  it('a device suffix is dropped from the phone JID', () => {
    const body = evolutionEvent('text');
    body.data.key.remoteJid = '5511987654321:12@s.whatsapp.net';
    body.data.key.remoteJidAlt = null;
    expect(parsed(body).phone).toBe('5511987654321');
  });

  it('a LID with no phone anywhere: ignored as unmatched, with the LID and message id for the log', () => {
    expect(parseEvolutionEvent(evolutionEvent('lid-only'), NOW)).toEqual({
      ignored: 'unmatched: no phone number in the event (LID only)',
      unmatched: { instance_name: 'clinica-aurora', message_id: '3AF4B5C6D7E8F9607182', lid: '180182702931994@lid', from_me: false },
    });
  });

  it('a group: is_group, the participant phone from participantAlt, chat_id the group', () => {
    expect(parsed(evolutionEvent('group'))).toMatchObject({
      is_group: true,
      phone: '554399806366',
      chat_id: '120363025246125486@g.us',
      lid: '180182702931994@lid',
      text: 'Bom dia, grupo!',
    });
  });

  it("a group message without the participant's phone, or from the clinic's phone, is ignored", () => {
    const lidOnly = evolutionEvent('group');
    delete lidOnly.data.key.participantAlt;
    expect(parseEvolutionEvent(lidOnly, NOW)).toEqual({ ignored: "group message without the participant's phone number" });
    const mine = evolutionEvent('group');
    mine.data.key.fromMe = true;
    expect(parseEvolutionEvent(mine, NOW)).toEqual({ ignored: "group message without the participant's phone number" });
  });

  it('status@broadcast and a newsletter are ignored', () => {
    expect(parseEvolutionEvent(evolutionEvent('status-broadcast'), NOW)).toEqual({ ignored: 'status or broadcast message' });
    const channel = evolutionEvent('text');
    channel.data.key = { remoteJid: '120363999999999999@newsletter', fromMe: false, id: 'N1' };
    expect(parseEvolutionEvent(channel, NOW)).toEqual({ ignored: 'chat "120363999999999999@newsletter" is neither a person nor a group' });
  });
});

describe('parseEvolutionEvent: who sent it', () => {
  it("typed on the clinic's phone (messages.upsert, fromMe): from_me, not sent by the API, the lead's phone", () => {
    expect(parsed(evolutionEvent('from-me-phone'))).toMatchObject({
      from_me: true,
      sent_by_api: false,
      phone: '554399806366',
      message_id: '2CFAB2D53326ED1D00FAD8963C8EA217',
      text: 'Posso ajudar',
      sender_name: 'Clínica Aurora',
    });
  });

  it('sent through the API: arrives as send.message, which is not a new message', () => {
    expect(parseEvolutionEvent(evolutionEvent('from-me-api'), NOW)).toEqual({ ignored: 'event "send.message" is not a new message' });
  });

  it('an API send echoed as messages.upsert (issue #1340) reads as any fromMe message: only the noted ids tell (evolution-sent-ids.test.ts)', () => {
    const echo = evolutionEvent('api-echo', { id: '3EB07F687BA29993B52BA3', phone: '5511987654321', text: 'Olá! Como posso ajudar?' });
    expect(parsed(echo)).toMatchObject({
      from_me: true,
      sent_by_api: false,
      phone: '5511987654321',
      message_id: '3EB07F687BA29993B52BA3',
      text: 'Olá! Como posso ajudar?',
    });
  });

  it('delivery statuses, connection updates and unknown events are ignored', () => {
    expect(parseEvolutionEvent(evolutionEvent('messages-update'), NOW)).toEqual({
      ignored: 'event "messages.update" is not a new message',
    });
    expect(parseEvolutionEvent(evolutionEvent('connection-update'), NOW)).toEqual({
      ignored: 'event "connection.update" is not a new message',
    });
    expect(parseEvolutionEvent({ event: 'qrcode.updated', instance: 'x' }, NOW)).toEqual({
      ignored: 'event "qrcode.updated" is not a new message',
    });
  });
});

describe('parseEvolutionEvent: malformed bodies', () => {
  it('lists each problem with its path', () => {
    expect(problems(null)).toEqual([{ path: '(body)', message: 'must be object' }]);
    expect(problems({})).toEqual([
      { path: 'event', message: 'is required' },
      { path: 'instance', message: 'is required' },
    ]);
    expect(problems({ event: 'messages.upsert', instance: 'x' })).toEqual([{ path: 'data', message: 'is required' }]);
    const body = evolutionEvent('text');
    delete body.data.key.id;
    body.data.key.remoteJid = '';
    expect(problems(body)).toEqual(
      expect.arrayContaining([
        { path: 'data.key.id', message: 'is required' },
        { path: 'data.key.remoteJid', message: 'must NOT have fewer than 1 characters' },
      ]),
    );
    const badTime = evolutionEvent('text');
    badTime.data.messageTimestamp = 'yesterday';
    expect(problems(badTime).map((p) => p.path)).toContain('data.messageTimestamp');
  });

  it('the schema accepts every fixture (usable as a flow trigger.input)', () => {
    const kinds: EvolutionFixtureKind[] = [
      'text',
      'extended-text',
      'audio',
      'image',
      'video',
      'document',
      'sticker',
      'lid-alt',
      'lid-pn-swapped',
      'sender-pn',
      'lid-only',
      'group',
      'from-me-phone',
      'from-me-api',
      'api-echo',
      'messages-update',
      'connection-update',
      'status-broadcast',
    ];
    for (const kind of kinds) {
      expect(schemaProblems(evolutionEventSchema, evolutionEvent(kind)), kind).toEqual([]);
      expect(() => parseEvolutionEvent(evolutionEvent(kind), NOW), kind).not.toThrow();
    }
    expect(schemaProblems(evolutionEventSchema, evolutionEvent('text', { apikey: null }))).toEqual([]);
  });
});
