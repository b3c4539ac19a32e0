// The gateway providers the end-to-end agent and intake suites run over (CONTRACT §11: "the same
// stories pass on each"). A suite is written once against ProviderCase: how to start the provider's
// fake server, which instance the stack seeds for it, how a story's message becomes that provider's
// inbound request (route, body, headers), how the gateway echoes one of LeadFlow's own sends back,
// and how to read what the fake received. Adding a provider
// to the suites is adding its entry to PROVIDERS (with its fake in test/fakes/).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { GatewayProvider } from '../../adapters/gateway/providers.js';
import { evolutionEvent, type FakeEvolution, signEvolutionJwt, startFakeEvolution } from '../fakes/evolution-server.js';
import { renderTemplateText } from '../../adapters/gateway/cloud/templates.js';
import { FakeCloudApi } from '../fakes/cloud-api-server.js';
import {
  cloudAudioWebhook,
  cloudImageWebhook,
  cloudEchoWebhook,
  cloudStatusWebhook,
  cloudTextWebhook,
  signCloudBody,
  wamid,
} from '../fakes/cloud-webhooks.js';
import { FakeGateway, type FakeMedia } from '../fakes/fake-gateway.js';
import type { Stack } from './stack.js';

/** One message of a story, said the provider-free way. */
export interface StoryMessage {
  /** The lead's phone, digits (in a group: the participant's). */
  phone: string;
  /** Default ''. For a medium, its caption. */
  text?: string;
  /** Default `text`. A medium (`audio`, `image`) carries `mediaRef` in its InboundCall. */
  kind?: 'text' | 'audio' | 'image';
  /** The provider's message id; default a fresh one per call. */
  id?: string;
  /**
   * Who wrote it: the lead (default), a person on the clinic's phone (`operator`: a takeover or a
   * command), or LeadFlow itself through the API (`api`: an echo of its own send).
   */
  from?: 'lead' | 'operator' | 'api';
  /** Sent in a group chat. */
  group?: boolean;
}

/** The seeded instance, as a provider case needs it to address and sign requests. */
export interface SeededInstance {
  id: number;
  clinica_id: number;
  token: string;
  external_id: string | null;
  app_secret: string | null;
  verify_token: string | null;
}

/** A request to post to the provider's route. */
export interface InboundCall {
  /** The route, e.g. `/leadagent`. */
  path: string;
  /** The bytes to send: signatures are over exactly these. */
  raw: string;
  headers: Record<string, string>;
  /** The provider's reference of the message's media (what gateway.download fetches), for a medium. */
  mediaRef?: string;
}

/** What a provider's fake server recorded of one send. */
export interface SentMessage {
  number: string;
  /** The text; a template is shown as `template:<name>(<parameters joined by |>)`. */
  text: string;
  /** Date.now() when the request arrived / was answered. */
  at: number;
  answeredAt?: number;
  /** The request carried the seeded instance's credentials as the provider expects them. */
  authenticated: boolean;
  /** The message id the fake answered with, where its record keeps the answer (Evolution). */
  id?: string;
}

/** The service's answer to one inbound request. */
export interface InboundAnswer {
  status: number;
  json: any;
}

/** A provider's fake server, as the stack holds it. */
export interface ProviderFake {
  /** The seeded instance's server_url. */
  readonly url: string;
  close(): Promise<void>;
}

/** The columns of the instance the stack seeds for a provider (its `nome` is the stack's). */
export interface ProviderInstanceSeed {
  provider: GatewayProvider;
  server_url: string;
  token: string;
  external_id?: string;
  app_secret?: string;
  verify_token?: string;
  templates?: Record<string, { name: string; language: string; body?: string }>;
}

export interface ProviderCase {
  name: GatewayProvider;
  /**
   * What the provider can tell (CONTRACT §11). Where it cannot, the stories that need it are not
   * declared for it (nothing shows as skipped), and the suite prints one line saying which and why
   * (`cannot`).
   */
  can: {
    /** It reports messages a person typed on the clinic's phone (takeover, operator commands). */
    operatorMessages: boolean;
    /** It echoes LeadFlow's own API sends as inbound messages (marked sent by the API). */
    apiEchoes: boolean;
    /** Group chats reach the webhook. */
    groups: boolean;
  };
  /** Why, for each `can` that is false: what the provider does instead. */
  cannot?: Partial<Record<keyof ProviderCase['can'], string>>;
  startFake(): Promise<ProviderFake>;
  instance(fake: ProviderFake): ProviderInstanceSeed;
  /** The request of one story message to `instance`. */
  inbound(message: StoryMessage, instance: SeededInstance): InboundCall;
  /** A request that holds no message (a delivery or read receipt) to `instance`, and the answer's body it gets. */
  receipt(instance: SeededInstance): { call: InboundCall; answer: unknown };
  /**
   * The gateway echoing LeadFlow's send `sent` back as an inbound message (as the provider's servers
   * that do it send it), posted to the service at `serviceUrl`; resolves to the service's answer.
   * Only where `can.apiEchoes`.
   */
  echo(fake: ProviderFake, instance: SeededInstance, sent: SentMessage, serviceUrl: string): Promise<InboundAnswer>;
  /** `call` with its authentication broken (a wrong token or signature): 401. */
  forge(call: InboundCall): InboundCall;
  /** Every send the fake answered with success, in arrival order. */
  sent(fake: ProviderFake, instance: SeededInstance): SentMessage[];
  /**
   * The fake accepts the next request (a send: it counts among sendRequests) and never answers it, as
   * a provider that delivered the message while its answer was lost with the process that waited.
   */
  acceptNextSilently(fake: ProviderFake): void;
  /** Every send request the fake received, answered or not, in arrival order: recipient, text and the request's body. */
  sendRequests(fake: ProviderFake): Array<{ number: string; text: string; body: any }>;
  /**
   * The provider's own webhook saying it accepted the send whose request body is `body`
   * (adapters/gateway/send-evidence.ts): uazapi's echo carrying the send's `track_id`, Evolution's
   * `send.message` with its recipient and text, a Cloud `sent` status carrying its
   * `biz_opaque_callback_data`.
   */
  sendConfirmation(instance: SeededInstance, body: any): InboundCall;
  /** Media references the fake was asked to download, in order. */
  downloads(fake: ProviderFake): string[];
  /** The fake serves `media` for the reference `ref`. */
  setMedia(fake: ProviderFake, ref: string, media: FakeMedia): void;
  /** Forgets every recorded request. */
  reset(fake: ProviderFake): void;
  /**
   * What a recipient who has not written in 24 hours gets for `texts` that name `template` (as sent()
   * shows it): the texts, or, on a gateway with the 24-hour rule (Cloud API), the template once.
   */
  toSilent(texts: string[], template: TemplateUse): string[];
  /** What memory records for `text` sent that way: the text, or the template's rendered body. */
  recordedFor(text: string, template: TemplateUse): string;
}

/** A send's template purpose and parameters (gateway.send's `template`). */
export interface TemplateUse {
  purpose: 'primeiro_contato' | 'alerta_hunter' | 'follow_up' | 'lembrete_consulta';
  parameters: string[];
}

const UAZAPI_FIXTURES = join(import.meta.dirname, '../fixtures/uazapi');
const UAZAPI_TOKEN = 'fake-token';
/** The clinic's own number (the seeded instance's phone). */
export const CLINIC_NUMBER = '5511912345678';
let sequence = 0;
const freshId = (prefix: string) => `${prefix}${process.pid}${String(++sequence).padStart(10, '0')}`;

const uazapiFixture = (name: string): Record<string, any> => JSON.parse(readFileSync(join(UAZAPI_FIXTURES, `${name}.json`), 'utf8'));

/** uazapi: events are the fixtures of test/fixtures/uazapi with the story's fields; the token authenticates. */
const uazapi: ProviderCase = {
  name: 'uazapi',
  can: { operatorMessages: true, apiEchoes: true, groups: true },
  startFake: () => new FakeGateway({ tokens: { [UAZAPI_TOKEN]: CLINIC_NUMBER } }).start(),
  instance: (fake) => ({ provider: 'uazapi', server_url: fake.url, token: UAZAPI_TOKEN }),
  inbound(message, instance) {
    const kind = message.kind ?? 'text';
    const from = message.from ?? 'lead';
    const fixture = { text: 'text-conversation', audio: 'audio-ptt', image: 'image-caption' }[kind];
    const body = uazapiFixture(message.group ? 'group-text' : fixture);
    const id = message.id ?? freshId({ text: '3EB0TXT', audio: '3EB0AUD', image: '3EB0IMG' }[kind]);
    const jid = `${message.phone}@s.whatsapp.net`;
    body.token = instance.token;
    body.owner = CLINIC_NUMBER;
    const m = body.message;
    m.messageid = id;
    m.fromMe = from !== 'lead';
    m.wasSentByApi = from === 'api';
    if (message.group) {
      m.sender_pn = jid;
    } else {
      body.chat.wa_chatid = jid;
      m.chatid = jid;
      m.sender_pn = from === 'lead' ? jid : `${CLINIC_NUMBER}@s.whatsapp.net`;
    }
    if (message.text !== undefined || kind === 'text') {
      m.text = message.text ?? '';
      m.content = kind === 'text' ? (message.text ?? '') : { ...m.content, caption: message.text ?? '' };
    }
    return {
      path: '/leadagent',
      raw: JSON.stringify(body),
      headers: {},
      ...(kind !== 'text' ? { mediaRef: id } : {}),
    };
  },
  // uazapi marks its API sends itself (`wasSentByApi`): the echo is the send's number and text.
  echo: (_fake, instance, sent, serviceUrl) =>
    postTo(serviceUrl, uazapi.inbound({ phone: sent.number, text: sent.text, from: 'api', ...(sent.id ? { id: sent.id } : {}) }, instance)),
  receipt(instance) {
    const body = { ...uazapiFixture('event-messages-update'), token: instance.token };
    return {
      call: { path: '/leadagent', raw: JSON.stringify(body), headers: {} },
      answer: { status: 'ignored', reason: expect.any(String) },
    };
  },
  forge(call) {
    return { ...call, raw: JSON.stringify({ ...JSON.parse(call.raw), token: 'not-a-registered-token' }) };
  },
  sent(fake, instance) {
    return (fake as FakeGateway)
      .requestsTo('/send/text')
      .filter((r) => r.status === 200)
      .map((r) => ({
        number: r.body.number,
        text: r.body.text,
        at: r.at,
        ...(r.answeredAt !== undefined ? { answeredAt: r.answeredAt } : {}),
        authenticated: r.headers.token === instance.token,
      }));
  },
  acceptNextSilently: (fake) => void (fake as FakeGateway).failNext('hang'),
  sendRequests: (fake) =>
    (fake as FakeGateway).requestsTo('/send/text').map((r) => ({ number: r.body.number, text: r.body.text, body: r.body })),
  sendConfirmation(instance, body) {
    const call = uazapi.inbound({ phone: body.number, text: body.text, from: 'api' }, instance);
    const event = JSON.parse(call.raw);
    event.message.track_source = body.track_source;
    event.message.track_id = body.track_id;
    return { ...call, raw: JSON.stringify(event) };
  },
  downloads: (fake) => (fake as FakeGateway).requestsTo('/message/download').map((r) => r.body.id),
  setMedia: (fake, ref, media) => void (fake as FakeGateway).setMedia(ref, media),
  reset(fake) {
    (fake as FakeGateway).requests.length = 0;
  },
  toSilent: (texts) => texts,
  recordedFor: (text) => text,
};

const CLOUD_TOKEN = 'cloud-access-token';
const CLOUD_PHONE_NUMBER_ID = '106540352242922';
const CLOUD_APP_SECRET = 'cloud-app-secret';
export const CLOUD_VERIFY_TOKEN = 'cloud-verify-token';
/**
 * The e2e Cloud instance's approved templates (CONTRACT §11), with their bodies as approved, so the
 * rendered text is recorded: primeiro_contato (lead's first name, clinic name), alerta_hunter (the
 * alert's name, phone, budget; or the handoff notification's phone, reason, summary), follow_up (the
 * lead's first name), lembrete_consulta (first name, clinic name, when, address).
 */
export const CLOUD_TEMPLATES = {
  primeiro_contato: {
    name: 'primeiro_contato_v1',
    language: 'pt_BR',
    body: 'Olá, {{1}}! Aqui é da {{2}}. Recebemos seu contato e podemos conversar por aqui. Posso te ajudar?',
  },
  alerta_hunter: { name: 'alerta_hunter_v1', language: 'pt_BR', body: '🚨 LeadFlow: {{1}} | {{2}} | {{3}}' },
  follow_up: { name: 'follow_up_v1', language: 'pt_BR', body: 'Oi, {{1}}! Ainda quer conversar com a gente?' },
  lembrete_consulta: {
    name: 'lembrete_consulta_v1',
    language: 'pt_BR',
    body: 'Olá, {{1}}! Lembrete da sua avaliação na {{2}}: {{3}}, {{4}}. Responda 1 para confirmar ou 2 para remarcar.',
  },
};
/** A fresh Graph media id (digits, as Meta hands them out). */
const mediaId = () => `${Date.now()}${String(++sequence).padStart(6, '0')}`;

/** How the Cloud fake's record shows a send: the text, or `template:<name>(<parameters joined by |>)`. */
function cloudSentText(body: any): string {
  if (body.type === 'text') return body.text.body;
  const parameters = (body.template?.components ?? [])
    .filter((c: any) => c.type === 'body')
    .flatMap((c: any) => c.parameters.map((p: any) => p.text));
  return `template:${body.template.name}(${parameters.join('|')})`;
}

/**
 * WhatsApp Cloud API: events are Meta's webhook bodies (test/fakes/cloud-webhooks.ts), stamped now
 * (a lead's message opens the 24-hour window from its timestamp) and signed with the instance's app
 * secret (X-Hub-Signature-256). A person of the clinic typing shows only on a Coexistence number, as
 * an `smb_message_echoes` echo: the provider module reads them, so operator stories run. LeadFlow's
 * own API sends never come back as messages (only as statuses): no API echoes. Group messages carry
 * `group_id` (Groups API). A send to someone who never wrote (the Hunter, a new lead) goes as the
 * instance's template when the flow names one.
 */
const cloud: ProviderCase = {
  name: 'cloud',
  can: { operatorMessages: true, apiEchoes: false, groups: true },
  cannot: { apiEchoes: "the Cloud API reports LeadFlow's own sends only as statuses, never as messages" },
  startFake: () =>
    new FakeCloudApi({
      tokens: { [CLOUD_TOKEN]: [CLOUD_PHONE_NUMBER_ID] },
      templates: Object.values(CLOUD_TEMPLATES).map((t) => t.name),
    }).start(),
  instance: (fake) => ({
    provider: 'cloud',
    server_url: (fake as FakeCloudApi).graphUrl,
    token: CLOUD_TOKEN,
    external_id: CLOUD_PHONE_NUMBER_ID,
    app_secret: CLOUD_APP_SECRET,
    verify_token: CLOUD_VERIFY_TOKEN,
    templates: CLOUD_TEMPLATES,
  }),
  inbound(message, instance) {
    const kind = message.kind ?? 'text';
    const from = message.from ?? 'lead';
    if (from === 'api') throw new Error('the Cloud API never echoes API sends as messages');
    const business = { phoneNumberId: instance.external_id ?? CLOUD_PHONE_NUMBER_ID, displayPhoneNumber: CLINIC_NUMBER };
    const id = message.id ?? wamid();
    const timestamp = Math.floor(Date.now() / 1000);
    const ref = kind !== 'text' ? mediaId() : undefined;
    let body: Record<string, any>;
    if (from === 'operator') {
      body = cloudEchoWebhook({ ...business, to: message.phone, text: message.text ?? '', id, timestamp });
    } else if (ref && kind === 'image') {
      body = cloudImageWebhook({
        ...business,
        from: message.phone,
        mediaId: ref,
        id,
        timestamp,
        ...(message.text ? { caption: message.text } : {}),
      });
    } else if (ref) {
      body = cloudAudioWebhook({ ...business, from: message.phone, mediaId: ref, id, timestamp });
      if (message.text) body.entry[0].changes[0].value.messages[0].audio.caption = message.text;
    } else {
      body = cloudTextWebhook({ ...business, from: message.phone, text: message.text ?? '', id, timestamp });
    }
    if (message.group) body.entry[0].changes[0].value.messages[0].group_id = 'Y2FwaV9ncm91cDoxMjAzNjMwNDc1ODc4NTI3NzI';
    const raw = JSON.stringify(body);
    return {
      path: '/leadagent/cloud',
      raw,
      headers: { 'x-hub-signature-256': signCloudBody(raw, instance.app_secret ?? '') },
      ...(ref ? { mediaRef: ref } : {}),
    };
  },
  echo() {
    throw new Error('the Cloud API never echoes API sends as messages');
  },
  receipt(instance) {
    const raw = JSON.stringify(
      cloudStatusWebhook({ phoneNumberId: instance.external_id ?? CLOUD_PHONE_NUMBER_ID, recipient: '5511987654321', status: 'delivered' }),
    );
    return {
      call: { path: '/leadagent/cloud', raw, headers: { 'x-hub-signature-256': signCloudBody(raw, instance.app_secret ?? '') } },
      answer: { status: 'accepted', executions: 0 },
    };
  },
  forge(call) {
    return { ...call, headers: { ...call.headers, 'x-hub-signature-256': signCloudBody(call.raw, 'not-the-app-secret') } };
  },
  sent(fake, instance) {
    return (fake as FakeCloudApi).requests
      .filter((r) => r.method === 'POST' && r.status === 200 && (r.body?.type === 'text' || r.body?.type === 'template'))
      .map((r) => ({
        number: r.body.to,
        text: cloudSentText(r.body),
        at: r.at,
        authenticated: r.headers.authorization === `Bearer ${instance.token}`,
      }));
  },
  acceptNextSilently: (fake) => void (fake as FakeCloudApi).fail(1, 'hang'),
  sendRequests: (fake) =>
    (fake as FakeCloudApi).requests
      .filter((r) => r.method === 'POST' && (r.body?.type === 'text' || r.body?.type === 'template'))
      .map((r) => ({ number: r.body.to, text: cloudSentText(r.body), body: r.body })),
  sendConfirmation(instance, body) {
    const envelope: Record<string, any> = cloudStatusWebhook({
      phoneNumberId: instance.external_id ?? CLOUD_PHONE_NUMBER_ID,
      displayPhoneNumber: CLINIC_NUMBER,
      recipient: body.to,
      status: 'sent',
    });
    envelope.entry[0].changes[0].value.statuses[0].biz_opaque_callback_data = body.biz_opaque_callback_data;
    const raw = JSON.stringify(envelope);
    return { path: '/leadagent/cloud', raw, headers: { 'x-hub-signature-256': signCloudBody(raw, instance.app_secret ?? '') } };
  },
  downloads: (fake) =>
    (fake as FakeCloudApi).requests
      .filter((r) => r.method === 'GET' && /^\/v[\d.]+\/[^/]+$/.test(r.path))
      .map((r) => r.path.split('/')[2]!),
  setMedia: (fake, ref, media) => void (fake as FakeCloudApi).setMedia(ref, { mime_type: media.mimetype, bytes: media.bytes }),
  reset(fake) {
    (fake as FakeCloudApi).requests.length = 0;
  },
  toSilent: (_texts, { purpose, parameters }) => [`template:${CLOUD_TEMPLATES[purpose].name}(${parameters.join('|')})`],
  recordedFor: (_text, { purpose, parameters }) => renderTemplateText(CLOUD_TEMPLATES[purpose], parameters),
};

const EVOLUTION_INSTANCE = 'clinica-sorriso';
const EVOLUTION_KEY = 'evo-instance-key';
/** The seeded instance's app_secret: the webhook's jwt_key, so every request carries Evolution's JWT. */
const EVOLUTION_JWT_KEY = 'evo-webhook-jwt-key';

/** `Authorization: Bearer <JWT>` as Evolution signs it with `jwtKey` (test/fakes/evolution-fixtures/jwt.ts). */
const evolutionBearer = (jwtKey: string) => ({ authorization: `Bearer ${signEvolutionJwt(jwtKey)}` });

/**
 * Evolution API v2: events built by test/fakes/evolution-fixtures/events.ts with the story's fields,
 * each signed with the JWT of the instance's app_secret (its webhook's jwt_key). What it can tell
 * (adapters/gateway/evolution/events.ts): a `messages.upsert` with fromMe is a person on another
 * device of the clinic's account, so the operator's stories hold. An API send fires `send.message`
 * (a story's `from: 'api'` message), which starts nothing; servers that also echo it as a fromMe
 * `messages.upsert` (issue #1340) are the fake's echo(): the send's own id, which LeadFlow noted when
 * it sent it (adapters/gateway/evolution/sent-ids.ts), so the echo is no takeover.
 */
const evolution: ProviderCase = {
  name: 'evolution',
  can: { operatorMessages: true, apiEchoes: true, groups: true },
  startFake: () => startFakeEvolution({ instances: { [EVOLUTION_INSTANCE]: EVOLUTION_KEY } }),
  instance: (fake) => ({
    provider: 'evolution',
    server_url: fake.url,
    token: EVOLUTION_KEY,
    external_id: EVOLUTION_INSTANCE,
    app_secret: EVOLUTION_JWT_KEY,
  }),
  inbound(message, instance) {
    const kind = message.kind ?? 'text';
    const from = message.from ?? 'lead';
    const id = message.id ?? freshId(from === 'api' ? '3EB0' : { text: '3A5FTXT', audio: '3A7CAUD', image: '3A8DIMG' }[kind]);
    const fixture = message.group
      ? 'group'
      : from === 'operator'
        ? 'from-me-phone'
        : from === 'api'
          ? 'from-me-api'
          : kind === 'text'
            ? 'text'
            : kind;
    const body = evolutionEvent(fixture, {
      instance: instance.external_id ?? '',
      apikey: instance.token,
      id,
      phone: message.phone,
      text: message.text ?? '',
      owner: CLINIC_NUMBER,
    });
    return {
      path: '/leadagent/evolution',
      raw: JSON.stringify(body),
      headers: instance.app_secret ? evolutionBearer(instance.app_secret) : {},
      ...(kind !== 'text' ? { mediaRef: id } : {}),
    };
  },
  echo(fake, instance, sent, serviceUrl) {
    const evolution = fake as FakeEvolution;
    evolution.setWebhook(instance.external_id ?? '', {
      url: `${serviceUrl}/leadagent/evolution`,
      ...(instance.app_secret ? { jwtKey: instance.app_secret } : {}),
    });
    return evolution.echo(sent.id);
  },
  receipt(instance) {
    const body = evolutionEvent('messages-update', { instance: instance.external_id ?? '', apikey: instance.token });
    return {
      call: {
        path: '/leadagent/evolution',
        raw: JSON.stringify(body),
        headers: instance.app_secret ? evolutionBearer(instance.app_secret) : {},
      },
      answer: { status: 'ignored', reason: expect.any(String) },
    };
  },
  forge(call) {
    return { ...call, headers: { ...call.headers, ...evolutionBearer('not-the-instance-jwt-key') } };
  },
  sent(fake, instance) {
    return (fake as FakeEvolution)
      .requestsTo('/message/sendText/')
      .filter((r) => r.status === 201)
      .map((r) => ({
        number: r.body.number,
        text: r.body.text,
        at: r.at,
        ...(r.answeredAt !== undefined ? { answeredAt: r.answeredAt } : {}),
        authenticated: r.headers.apikey === instance.token && r.instance === instance.external_id,
        ...(typeof r.answer?.key?.id === 'string' ? { id: r.answer.key.id } : {}),
      }));
  },
  acceptNextSilently: (fake) => void (fake as FakeEvolution).failNext('hang'),
  sendRequests: (fake) =>
    (fake as FakeEvolution).requestsTo('/message/sendText/').map((r) => ({ number: r.body.number, text: r.body.text, body: r.body })),
  // Evolution fires `send.message` for every API send: the recipient and the text, no id of ours.
  sendConfirmation: (instance, body) => evolution.inbound({ phone: body.number, text: body.text, from: 'api' }, instance),
  downloads: (fake) => (fake as FakeEvolution).requestsTo('/chat/getBase64FromMediaMessage/').map((r) => r.body?.message?.key?.id),
  setMedia: (fake, ref, media) => void (fake as FakeEvolution).setMedia(ref, media),
  reset(fake) {
    (fake as FakeEvolution).requests.length = 0;
  },
  // No 24-hour rule: texts go as they are.
  toSilent: (texts) => texts,
  recordedFor: (text) => text,
};

/** The providers the e2e agent and intake suites run over. */
export const PROVIDERS: readonly ProviderCase[] = [uazapi, evolution, cloud];

/** The Cloud API case (its own route tests: verification, signatures, batches). */
export const CLOUD_CASE: ProviderCase = cloud;

/** The uazapi case: the default of every stack. */
export const UAZAPI_CASE: ProviderCase = uazapi;

/** The Evolution API case (its instance signs with a JWT: the seeded app_secret is its jwt_key). */
export const EVOLUTION_CASE: ProviderCase = evolution;

/**
 * Declares the suite once per provider of PROVIDERS, `title` naming it (`agent [uazapi]`): pass it
 * on to forEachBackend, so each runs on both backends (`agent [uazapi] [postgres + redis]`).
 */
export function forEachProvider(title: string, body: (provider: ProviderCase, title: string) => void): void {
  for (const provider of PROVIDERS) body(provider, `${title} [${provider.name}]`);
}

/** Posts one story message to the stack's provider route; the answer's status and JSON. */
export async function send(stack: Stack, message: StoryMessage): Promise<{ status: number; json: any }> {
  return post(stack, stack.provider.inbound(message, stack.instance));
}

/** Posts a prepared call (e.g. the same message twice, or a forged one). */
export async function post(stack: Stack, call: InboundCall): Promise<{ status: number; json: any }> {
  return postTo(stack.url, call);
}

/** The gateway of the stack echoing LeadFlow's send `sent` back (only where `can.apiEchoes`); the service's answer. */
export function echo(stack: Stack, sent: SentMessage): Promise<InboundAnswer> {
  return stack.provider.echo(stack.fake, stack.instance, sent, stack.url);
}

/** Posts `call` to the service at `serviceUrl`. */
async function postTo(serviceUrl: string, call: InboundCall): Promise<InboundAnswer> {
  const res = await fetch(`${serviceUrl}${call.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...call.headers },
    body: call.raw,
  });
  return { status: res.status, json: await res.json() };
}

/** Texts the stack's fake gateway sent to `number`, in order. */
export function sentTo(stack: Stack, number: string): string[] {
  return sent(stack)
    .filter((m) => m.number === number)
    .map((m) => m.text);
}

/** Every send of the stack's fake gateway, in order. */
export function sent(stack: Stack): SentMessage[] {
  return stack.provider.sent(stack.fake, stack.instance);
}
