// parseCloudWebhook over webhook bodies shaped as Meta's reference (test/fakes/cloud-webhooks.ts):
// each message kind, several messages per body, statuses, Coexistence echoes, BSUID-only users and
// malformed bodies (CloudEventError listing paths).
import { describe, expect, it } from 'vitest';
import { parseCloudWebhook } from '../../adapters/gateway/cloud/events.js';
import { CloudEventError } from '../../adapters/gateway/cloud/errors.js';
import {
  CLOUD_DISPLAY_NUMBER,
  CLOUD_PHONE_NUMBER_ID,
  cloudAudioWebhook,
  cloudBatchWebhook,
  cloudDocumentWebhook,
  cloudEchoWebhook,
  cloudEnvelope,
  cloudImageWebhook,
  cloudReactionWebhook,
  cloudStatusWebhook,
  cloudStickerWebhook,
  cloudTextWebhook,
  cloudUsernameOnlyWebhook,
  cloudVideoWebhook,
  leadMessage,
  messagesChange,
} from '../fakes/cloud-webhooks.js';

const LEAD = '554399806366';
const lead = { from: LEAD, timestamp: 1773050200 };

function only(body: unknown) {
  const parsed = parseCloudWebhook(body);
  expect(parsed.messages).toHaveLength(1);
  return parsed.messages[0]!;
}

describe('parseCloudWebhook: message kinds', () => {
  it('text: every NormalizedMessage field, provider cloud, phone from `from` as given, seconds -> ms', () => {
    const body = cloudTextWebhook({ ...lead, id: 'wamid.TEXT1', text: 'Oi, vi o anúncio do clareamento', userId: 'BR.1502576394655843' });
    const parsed = parseCloudWebhook(body);
    expect(parsed).toMatchObject({
      phone_number_id: CLOUD_PHONE_NUMBER_ID,
      phone_number_ids: [CLOUD_PHONE_NUMBER_ID],
      statuses: 0,
      ignored: [],
    });
    expect(parsed.messages).toEqual([
      {
        provider: 'cloud',
        phone_number_id: CLOUD_PHONE_NUMBER_ID,
        instance_name: CLOUD_DISPLAY_NUMBER,
        base_url: '',
        phone: LEAD,
        chat_id: `${LEAD}@s.whatsapp.net`,
        message_id: 'wamid.TEXT1',
        from_me: false,
        sent_by_api: false,
        is_group: false,
        kind: 'text',
        text: 'Oi, vi o anúncio do clareamento',
        sender_name: 'Maria Souza',
        user_id: 'BR.1502576394655843',
        timestamp_ms: 1773050200000,
      },
    ]);
  });

  it('voice note: kind audio, media_ref = the media id, mimetype, voice flag, no text', () => {
    expect(only(cloudAudioWebhook({ ...lead, mediaId: '1908647269898587' }))).toMatchObject({
      kind: 'audio',
      media_ref: '1908647269898587',
      mimetype: 'audio/ogg; codecs=opus',
      voice: true,
      text: '',
    });
    expect(only(cloudAudioWebhook({ ...lead, mediaId: '1', voice: false }))).toMatchObject({ kind: 'audio', voice: false });
  });

  it('image with caption, video, document with file name and caption, sticker', () => {
    expect(only(cloudImageWebhook({ ...lead, mediaId: '1003383421387256', caption: 'Foto do meu sorriso' }))).toMatchObject({
      kind: 'image',
      text: 'Foto do meu sorriso',
      media_ref: '1003383421387256',
      mimetype: 'image/jpeg',
    });
    expect(only(cloudImageWebhook({ ...lead, mediaId: '7' }))).toMatchObject({ kind: 'image', text: '' });
    expect(only(cloudVideoWebhook({ ...lead, mediaId: '8', caption: 'vídeo' }))).toMatchObject({
      kind: 'video',
      text: 'vídeo',
      mimetype: 'video/mp4',
    });
    const doc = only(cloudDocumentWebhook({ ...lead, mediaId: '622684793477189', filename: 'exame.pdf', caption: 'meu exame' }));
    expect(doc).toMatchObject({
      kind: 'document',
      file_name: 'exame.pdf',
      text: 'meu exame',
      mimetype: 'application/pdf',
      media_ref: '622684793477189',
    });
    expect(only(cloudStickerWebhook({ ...lead, mediaId: '9' }))).toMatchObject({ kind: 'sticker', media_ref: '9', mimetype: 'image/webp' });
  });

  it('reaction, button, interactive, location, contacts and unsupported are `other`, with their text when they have one', () => {
    expect(only(cloudReactionWebhook({ ...lead, emoji: '👍', reactedTo: 'wamid.OUT' }))).toMatchObject({ kind: 'other', text: '👍' });
    const kinds = [
      leadMessage(lead, 'button', { payload: 'AGENDAR', text: 'Quero agendar' }),
      leadMessage(lead, 'interactive', { type: 'button_reply', button_reply: { id: 'b1', title: 'Sim' } }),
      leadMessage(lead, 'interactive', { type: 'list_reply', list_reply: { id: 'l1', title: 'Terça', description: 'manhã' } }),
      leadMessage(lead, 'location', { latitude: -23.5, longitude: -46.6, name: 'Clínica', address: 'Av. Paulista' }),
      leadMessage(lead, 'contacts', [{ name: { formatted_name: 'Ana' } }] as never),
      { ...leadMessage(lead, 'unsupported', {}), errors: [{ code: 131051, title: 'Message type unknown' }] },
    ];
    const parsed = parseCloudWebhook(cloudEnvelope([messagesChange(lead, kinds)]));
    expect(parsed.messages.map((m) => [m.kind, m.text])).toEqual([
      ['other', 'Quero agendar'],
      ['other', 'Sim'],
      ['other', 'Terça'],
      ['other', 'Clínica - Av. Paulista'],
      ['other', ''],
      ['other', ''],
    ]);
  });

  it('a system message is ignored with its reason, never a lead message', () => {
    const parsed = parseCloudWebhook(
      cloudEnvelope([messagesChange(lead, [leadMessage(lead, 'system', { body: 'changed number', type: 'user_changed_number' })])]),
    );
    expect(parsed.messages).toEqual([]);
    expect(parsed.ignored).toEqual([expect.stringMatching(/^system message wamid\..* \(user_changed_number\)$/)]);
  });

  it('a timestamp that is not seconds falls back to `now`; one above 1e11 is taken as ms', () => {
    const body = cloudTextWebhook({ ...lead, text: 'oi' });
    body.entry[0].changes[0].value.messages[0].timestamp = 'yesterday';
    expect(parseCloudWebhook(body, 42).messages[0]!.timestamp_ms).toBe(42);
    body.entry[0].changes[0].value.messages[0].timestamp = 1773050200123;
    expect(parseCloudWebhook(body, 42).messages[0]!.timestamp_ms).toBe(1773050200123);
  });

  it('a group message (Groups API `group_id`) is reported as a group, like uazapi groups', () => {
    const body = cloudTextWebhook({ ...lead, text: 'oi grupo' });
    body.entry[0].changes[0].value.messages[0].group_id = '120363025246125486';
    expect(only(body)).toMatchObject({ is_group: true, chat_id: '120363025246125486', phone: LEAD });
  });
});

describe('parseCloudWebhook: several messages, statuses, echoes, users without a phone', () => {
  it('several messages in one body (two in one change, one in a second entry) are several messages, in order', () => {
    const other = { from: '5511987654321', name: 'João' };
    const parsed = parseCloudWebhook(
      cloudBatchWebhook({ ...lead, texts: ['Oi', 'Quanto custa?'] }, { ...other, text: 'Olá', phoneNumberId: '222222222222222' }),
    );
    expect(parsed.messages.map((m) => [m.phone, m.text, m.sender_name, m.phone_number_id])).toEqual([
      [LEAD, 'Oi', 'Maria Souza', CLOUD_PHONE_NUMBER_ID],
      [LEAD, 'Quanto custa?', 'Maria Souza', CLOUD_PHONE_NUMBER_ID],
      ['5511987654321', 'Olá', 'João', '222222222222222'],
    ]);
    expect(new Set(parsed.messages.map((m) => m.message_id)).size).toBe(3);
    expect(parsed.phone_number_ids).toEqual([CLOUD_PHONE_NUMBER_ID, '222222222222222']);
    expect(parsed.phone_number_id).toBe(CLOUD_PHONE_NUMBER_ID);
  });

  it('a status-only body holds no message: statuses counted, a failed one listed with its code', () => {
    expect(parseCloudWebhook(cloudStatusWebhook({ recipient: LEAD, status: 'delivered' }))).toEqual({
      phone_number_id: CLOUD_PHONE_NUMBER_ID,
      phone_number_ids: [CLOUD_PHONE_NUMBER_ID],
      messages: [],
      statuses: 1,
      failures: [],
      ignored: [],
    });
    const failed = parseCloudWebhook(cloudStatusWebhook({ recipient: LEAD, status: 'failed', messageId: 'wamid.OUT1' }));
    expect(failed.failures).toEqual([
      { phone_number_id: CLOUD_PHONE_NUMBER_ID, message_id: 'wamid.OUT1', recipient: LEAD, code: 131047, title: 'Re-engagement message' },
    ]);
  });

  it('a Coexistence echo (typed in the WhatsApp Business app) is from_me, not sent by the API, and the lead is `to`', () => {
    const parsed = parseCloudWebhook(cloudEchoWebhook({ to: LEAD, text: 'Oi Maria, aqui é a Dra. Ana', id: 'wamid.ECHO1' }));
    expect(parsed.messages).toEqual([
      expect.objectContaining({
        phone: LEAD,
        chat_id: `${LEAD}@s.whatsapp.net`,
        message_id: 'wamid.ECHO1',
        from_me: true,
        sent_by_api: false,
        kind: 'text',
        text: 'Oi Maria, aqui é a Dra. Ana',
        timestamp_ms: 1773050400000,
      }),
    ]);
    expect(parsed.messages[0]).not.toHaveProperty('sender_name');
  });

  it('a revoked-message echo is ignored; an edit echo is `other` with the new text', () => {
    const body = cloudEchoWebhook({ to: LEAD, text: 'x' });
    const echoes = body.entry[0].changes[0].value.message_echoes;
    echoes[0] = { ...echoes[0], type: 'revoke', text: undefined, revoke: { original_message_id: 'wamid.OLD' } };
    echoes.push({
      from: CLOUD_DISPLAY_NUMBER,
      to: LEAD,
      id: 'wamid.ED',
      timestamp: 1773050410,
      type: 'edit',
      edit: { original_message_id: 'wamid.OLD', message: { type: 'text', text: { body: 'corrigido' } } },
    });
    const parsed = parseCloudWebhook(body);
    expect(parsed.messages.map((m) => [m.kind, m.text, m.from_me])).toEqual([['other', 'corrigido', true]]);
    expect(parsed.ignored).toEqual([expect.stringMatching(/^revoked message echo /)]);
  });

  it('a user with only a business-scoped user id (no phone) is kept in `ignored` as unmatched, never dropped silently', () => {
    const parsed = parseCloudWebhook(cloudUsernameOnlyWebhook({ userId: 'BR.1502576394655843', text: 'oi', id: 'wamid.U1' }));
    expect(parsed.messages).toEqual([]);
    expect(parsed.ignored).toEqual(['unmatched: message wamid.U1 from user BR.1502576394655843 has no phone number']);
  });

  it('without `from`, the phone comes from the contact with the same user id', () => {
    const body = cloudUsernameOnlyWebhook({ userId: 'BR.77', text: 'oi' });
    body.entry[0].changes[0].value.contacts[0].wa_id = LEAD;
    expect(only(body)).toMatchObject({ phone: LEAD, user_id: 'BR.77', sender_name: 'Maria' });
  });

  it('other fields and value.errors are listed in ignored', () => {
    const body = cloudEnvelope([
      { field: 'message_template_status_update', value: { event: 'APPROVED', message_template_name: 'lead_boas_vindas' } },
      {
        field: 'messages',
        value: {
          messaging_product: 'whatsapp',
          metadata: { display_phone_number: CLOUD_DISPLAY_NUMBER, phone_number_id: CLOUD_PHONE_NUMBER_ID },
          errors: [{ code: 130429, title: 'Rate limit hit' }],
        },
      },
    ]);
    expect(parseCloudWebhook(body).ignored).toEqual([
      'field "message_template_status_update" is not handled',
      'error 130429: Rate limit hit',
    ]);
  });
});

describe('parseCloudWebhook: malformed bodies', () => {
  it('throws CloudEventError (422) listing every problem with its path', () => {
    const body = cloudTextWebhook({ ...lead, text: 'oi' });
    delete body.entry[0].changes[0].value.metadata.phone_number_id;
    delete body.entry[0].changes[0].value.messages[0].id;
    body.entry[0].changes[0].value.messages[0].timestamp = { seconds: 1 };
    let err: unknown;
    try {
      parseCloudWebhook(body);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CloudEventError);
    expect(err).toMatchObject({ status: 422, code: 'invalid-event' });
    expect((err as CloudEventError).details).toEqual([
      { path: 'entry.0.changes.0.value.metadata.phone_number_id', message: 'is required' },
      { path: 'entry.0.changes.0.value.messages.0.id', message: 'is required' },
      { path: 'entry.0.changes.0.value.messages.0.timestamp', message: 'must be string,number' },
    ]);
  });

  it('not an object, another object type, no entry array, no changes array', () => {
    const details = (body: unknown) => {
      try {
        parseCloudWebhook(body);
      } catch (e) {
        return (e as CloudEventError).details.map((d) => d.path);
      }
      return [];
    };
    expect(details('text')).toEqual(['(body)']);
    expect(details({ object: 'page', entry: [] })).toEqual(['object']);
    expect(details({ object: 'whatsapp_business_account' })).toEqual(['entry']);
    expect(details({ object: 'whatsapp_business_account', entry: [{ id: '1' }, 3] })).toEqual(['entry.0.changes', 'entry.1']);
    expect(details({ object: 'whatsapp_business_account', entry: [{ changes: [{ field: 'messages' }] }] })).toEqual([
      'entry.0.changes.0.value',
    ]);
    expect(details({ object: 'whatsapp_business_account', entry: [{ changes: {} }] })).toEqual(['entry.0.changes']);
    expect(
      details({
        object: 'whatsapp_business_account',
        entry: [{ changes: [{ field: 'messages', value: { metadata: { phone_number_id: '1' }, messages: {}, statuses: 'x' } }] }],
      }),
    ).toEqual(['entry.0.changes.0.value.messages', 'entry.0.changes.0.value.statuses']);
  });
});
