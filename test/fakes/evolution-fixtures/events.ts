// Builders of Evolution API v2 webhook bodies, one per message kind, for tests. A fresh object per
// call. Field names and shapes come from the sources named on each kind; values are invented
// (phones, ids, names). Envelope: evolution-foundation/evolution-api tag 2.3.7,
// src/api/integrations/event/webhook/webhook.controller.ts `emit` {event, instance, data, destination,
// date_time, sender, server_url, apikey} (reference whatsapp-providers.md §1.3). `data` of
// `messages.upsert` is `prepareMessage(WAMessage)` (whatsapp.baileys.service.ts): {key, pushName,
// status, message, contextInfo, messageType, messageTimestamp (seconds), instanceId, source}, where
// binary proto fields arrive as index-keyed objects and 64-bit ones as {low, high, unsigned} (§1.5).

export type EvolutionFixtureKind =
  | 'text'
  | 'extended-text'
  | 'audio'
  | 'image'
  | 'video'
  | 'document'
  | 'sticker'
  | 'lid-alt'
  | 'lid-pn-swapped'
  | 'sender-pn'
  | 'lid-only'
  | 'group'
  | 'from-me-phone'
  | 'from-me-api'
  | 'api-echo'
  | 'messages-update'
  | 'connection-update'
  | 'status-broadcast';

export interface EvolutionEventOptions {
  /** Instance name. Default 'clinica-aurora'. */
  instance?: string;
  /** The body's `apikey` (the instance token when the server exposes it, else null). Default 'evo-instance-key'. */
  apikey?: string | null;
  /** `data.key.id`. Default a fixed id per kind. */
  id?: string;
  /** The lead's phone digits. Default '554399806366' (a legacy 12-digit BR number, as WhatsApp reports it). */
  phone?: string;
  /** The lead's LID user part. Default '180182702931994'. */
  lid?: string;
  /** Text or caption, where the kind has one. */
  text?: string;
  pushName?: string;
  /** `messageTimestamp`, seconds. Default 1773050145. */
  timestamp?: number;
  /** The instance's own number (`sender`). Default '5511912345678'. */
  owner?: string;
  serverUrl?: string;
}

/** An index-keyed byte array, as Evolution serialises proto `bytes` fields (e.g. mediaKey). */
const bytes = (...values: number[]) => Object.fromEntries(values.map((v, i) => [String(i), v]));
/** A protobuf Long as Evolution serialises `fileLength` / `mediaKeyTimestamp`. */
const long = (low: number, unsigned = true) => ({ low, high: 0, unsigned });

function envelope(event: string, data: unknown, o: EvolutionEventOptions): any {
  return {
    event,
    instance: o.instance ?? 'clinica-aurora',
    data,
    destination: 'https://leadflow.example/leadagent/evolution',
    date_time: '2026-03-09T10:15:45.123Z',
    sender: `${o.owner ?? '5511912345678'}@s.whatsapp.net`,
    server_url: o.serverUrl ?? 'https://evo.example.com',
    apikey: o.apikey === undefined ? 'evo-instance-key' : o.apikey,
  };
}

function upsert(o: EvolutionEventOptions, key: object, message: object, messageType: string, extra: object = {}): any {
  return envelope(
    'messages.upsert',
    {
      key,
      pushName: o.pushName ?? 'Maria Souza',
      status: 'DELIVERY_ACK',
      message,
      contextInfo: null,
      messageType,
      messageTimestamp: o.timestamp ?? 1773050145,
      instanceId: '6f1c2b9e-0d4a-4c3b-9a7e-5d2f1a0b9c31',
      source: 'ios',
      ...extra,
    },
    o,
  );
}

/** A lead's 1:1 key as 2.3.7 emits it: remoteJid rewritten to the phone, remoteJidAlt the phone too, addressingMode kept. */
function leadKey(o: EvolutionEventOptions, id: string): object {
  const pn = `${o.phone ?? '554399806366'}@s.whatsapp.net`;
  return { remoteJid: pn, remoteJidAlt: pn, fromMe: false, id: o.id ?? id, addressingMode: 'lid' };
}

export function evolutionEvent(kind: EvolutionFixtureKind, o: EvolutionEventOptions = {}): any {
  const phone = o.phone ?? '554399806366';
  const pn = `${phone}@s.whatsapp.net`;
  const lid = `${o.lid ?? '180182702931994'}@lid`;
  switch (kind) {
    // Reference §1.5 "Text from a lead (LID-addressed chat, after the 2.3.7 rewrite)"; rewrite:
    // BAILEYS `if (messageRaw.key.remoteJid?.includes('@lid') && messageRaw.key.remoteJidAlt)`.
    case 'text':
      return upsert(
        o,
        leadKey(o, '3A5F1C2B9D8E7F6A5B4C'),
        { conversation: o.text ?? 'Oi, vi o anúncio do clareamento', messageContextInfo: { deviceListMetadataVersion: 2 } },
        'conversation',
      );
    // Servers before the prepareMessage rewrite (gateway-and-forms.md §2: "Older versions sent
    // message.extendedTextMessage.text"); Baileys proto ExtendedTextMessage {text, matchedText, …}.
    case 'extended-text':
      return upsert(
        o,
        leadKey(o, '3A6B2C3D4E5F60718293'),
        {
          extendedTextMessage: {
            text: o.text ?? 'Quanto custa? https://clinica.example/clareamento',
            matchedText: 'https://clinica.example/clareamento',
            previewType: 0,
          },
        },
        'extendedTextMessage',
      );
    // Reference §1.5 "Voice note (ptt)".
    case 'audio':
      return upsert(
        o,
        leadKey(o, '3A7C3D4E5F6071829304'),
        {
          audioMessage: {
            url: 'https://mmg.whatsapp.net/v/t62.7117-24/fixture.enc?ccb=11-4',
            mimetype: 'audio/ogg; codecs=opus',
            fileSha256: bytes(12, 200, 7),
            fileLength: long(7107),
            seconds: 3,
            ptt: true,
            mediaKey: bytes(146, 3, 88),
            fileEncSha256: bytes(84, 1, 9),
            directPath: '/v/t62.7117-24/fixture.enc?ccb=11-4',
            mediaKeyTimestamp: long(1773050140, false),
            waveform: bytes(0, 12, 40),
          },
        },
        'audioMessage',
      );
    // Reference §1.5 "Image with caption".
    case 'image':
      return upsert(
        o,
        leadKey(o, '3A8D4E5F607182930415'),
        {
          imageMessage: {
            url: 'https://mmg.whatsapp.net/o1/v/t62.7118-24/fixture.enc',
            mimetype: 'image/jpeg',
            caption: o.text ?? 'Foto do meu sorriso',
            fileSha256: bytes(1, 2, 3),
            fileLength: long(182044),
            height: 1280,
            width: 960,
            mediaKey: bytes(4, 5, 6),
            directPath: '/o1/v/t62.7118-24/fixture.enc',
            jpegThumbnail: bytes(255, 216, 255),
          },
        },
        'imageMessage',
      );
    // Reference §1.5 "video".
    case 'video':
      return upsert(
        o,
        leadKey(o, '3A9E5F60718293041526'),
        {
          videoMessage: {
            url: 'https://mmg.whatsapp.net/v/t62.7161-24/fixture.enc',
            mimetype: 'video/mp4',
            caption: o.text ?? 'Olha o vídeo',
            seconds: 12,
            height: 848,
            width: 480,
            mediaKey: bytes(7, 8, 9),
            directPath: '/v/t62.7161-24/fixture.enc',
            jpegThumbnail: bytes(255, 216, 255),
          },
        },
        'videoMessage',
      );
    // Reference §1.5 "PDF" (a captioned one arrives flattened from documentWithCaptionMessage).
    case 'document':
      return upsert(
        o,
        leadKey(o, '3AAF60718293A4152637'),
        {
          documentMessage: {
            url: 'https://mmg.whatsapp.net/v/t62.7119-24/fixture.enc',
            mimetype: 'application/pdf',
            title: 'exame.pdf',
            fileName: 'exame.pdf',
            pageCount: 2,
            caption: o.text ?? 'meu exame',
            mediaKey: bytes(10, 11, 12),
            directPath: '/v/t62.7119-24/fixture.enc',
          },
        },
        'documentMessage',
      );
    // Baileys proto Message.StickerMessage (baileys.wiki proto reference; evolution-api-sdk 0.6.23
    // lib/types/webhooks.d.ts `StickerMessage`): url, fileSha256, fileEncSha256, mediaKey, mimetype
    // image/webp, height, width, directPath, fileLength, mediaKeyTimestamp, isAnimated.
    case 'sticker':
      return upsert(
        o,
        leadKey(o, '3AB0718293A4B5263748'),
        {
          stickerMessage: {
            url: 'https://mmg.whatsapp.net/v/t62.15575-24/fixture.enc',
            fileSha256: bytes(13, 14),
            fileEncSha256: bytes(15, 16),
            mediaKey: bytes(17, 18),
            mimetype: 'image/webp',
            height: 64,
            width: 64,
            directPath: '/v/t62.15575-24/fixture.enc',
            fileLength: long(10944),
            mediaKeyTimestamp: long(1773050100, false),
            isAnimated: false,
          },
        },
        'stickerMessage',
      );
    // Reference §1.5: "Same message on 2.3.5/2.3.6" — remoteJid @lid, the phone in remoteJidAlt.
    case 'lid-alt':
      return upsert(
        o,
        { remoteJid: lid, remoteJidAlt: pn, fromMe: false, id: o.id ?? '3AC18293A4B5C6374859', addressingMode: 'lid' },
        { conversation: o.text ?? 'Oi, ainda tem horário?' },
        'conversation',
      );
    // Reference §1.5: "On 2.4.0-rc" — remoteJid the phone, remoteJidAlt the LID, addressingMode pn.
    case 'lid-pn-swapped':
      return upsert(
        o,
        { remoteJid: pn, remoteJidAlt: lid, fromMe: false, id: o.id ?? '3AD293A4B5C6D7485960', addressingMode: 'pn' },
        { conversation: o.text ?? 'Oi' },
        'conversation',
      );
    // Reference §1.1: 2.3.0-2.3.4 keys carried `senderPn` (here with the LID left in remoteJid).
    case 'sender-pn':
      return upsert(
        o,
        { remoteJid: lid, senderPn: pn, fromMe: false, id: o.id ?? '3AE3A4B5C6D7E8596071' },
        { conversation: o.text ?? 'Oi' },
        'conversation',
      );
    // evolution-foundation/evolution-api issues #2466 and #1764 (captured bodies): only a LID, no
    // remoteJidAlt (also #2324, #2326 on 2.3.7).
    case 'lid-only':
      return upsert(
        o,
        { remoteJid: lid, fromMe: false, id: o.id ?? '3AF4B5C6D7E8F9607182' },
        {
          conversation: o.text ?? 'Vou pensar e retorno. Muito obrigada por enquanto!',
          messageContextInfo: { deviceListMetadataVersion: 2 },
        },
        'conversation',
      );
    // Reference §1.5 "Group message": remoteJid …@g.us, participant the sender (LID or PN) and
    // participantAlt the other form [Baileys 7]; pushName the participant's.
    case 'group':
      return upsert(
        o,
        {
          remoteJid: '120363025246125486@g.us',
          fromMe: false,
          id: o.id ?? '3A05C6D7E8F9A0718293',
          participant: lid,
          participantAlt: pn,
          addressingMode: 'lid',
        },
        { conversation: o.text ?? 'Bom dia, grupo!' },
        'conversation',
      );
    // evolution-foundation/evolution-api issue #1465 (captured): typed in the phone app, key.fromMe
    // true, status SERVER_ACK, pushName the clinic's own name, source android (reference §1.6).
    case 'from-me-phone':
      return upsert(
        o,
        { remoteJid: pn, fromMe: true, id: o.id ?? '2CFAB2D53326ED1D00FAD8963C8EA217' },
        { conversation: o.text ?? 'Posso ajudar' },
        'conversation',
        { pushName: o.pushName ?? 'Clínica Aurora', status: 'SERVER_ACK', source: 'android' },
      );
    // Reference §1.6 `send.message` example: what the instance emits for a message sent through its
    // API (never a messages.upsert: the socket has emitOwnEvents false); the same object is the send's HTTP answer.
    case 'from-me-api':
      return envelope(
        'send.message',
        {
          key: { remoteJid: pn, fromMe: true, id: o.id ?? '3EB07F687BA29993B52BA3' },
          pushName: 'Você',
          status: 'PENDING',
          message: { conversation: o.text ?? 'Olá Maria! Aqui é a Clínica Aurora.' },
          contextInfo: null,
          messageType: 'conversation',
          messageTimestamp: o.timestamp ?? 1773050160,
          instanceId: '6f1c2b9e-0d4a-4c3b-9a7e-5d2f1a0b9c31',
          source: 'web',
        },
        o,
      );
    // Evolution issue #1340: a server that echoes an API send also as `messages.upsert` with
    // fromMe (reference §1.6 "Belt and braces"): the send's key (id `3EB0…`, source web) and text,
    // as prepareMessage builds any upsert; status SERVER_ACK, as for the account's other devices.
    case 'api-echo':
      return upsert(
        o,
        { remoteJid: pn, fromMe: true, id: o.id ?? '3EB07F687BA29993B52BA3' },
        { conversation: o.text ?? 'Olá Maria! Aqui é a Clínica Aurora.' },
        'conversation',
        { pushName: o.pushName ?? 'Você', status: 'SERVER_ACK', source: 'web', messageTimestamp: o.timestamp ?? 1773050160 },
      );
    // Reference §1.8 (shape as captured in issue #2010): a delivery status of one of our messages.
    case 'messages-update':
      return envelope(
        'messages.update',
        {
          keyId: o.id ?? '3EB07F687BA29993B52BA3',
          remoteJid: pn,
          fromMe: true,
          participant: null,
          status: 'READ',
          instanceId: '6f1c2b9e-0d4a-4c3b-9a7e-5d2f1a0b9c31',
          messageId: 'cmfyoow42000hov4xwkdug3lv',
        },
        o,
      );
    // Reference §1.11: `connection.update` data {instance, state, statusReason, wuid?}.
    case 'connection-update':
      return envelope('connection.update', { instance: o.instance ?? 'clinica-aurora', state: 'open', statusReason: 200 }, o);
    // Reference §1.5: "Status posts use remoteJid: status@broadcast".
    case 'status-broadcast':
      return upsert(
        o,
        { remoteJid: 'status@broadcast', fromMe: false, id: o.id ?? '3A16D7E8F9A0B1829304', participant: pn },
        { conversation: o.text ?? 'Promoção de hoje!' },
        'conversation',
      );
  }
}
