// The gateway providers the end-to-end agent and intake suites run over (CONTRACT §11: "the same
// stories pass on each"). A suite is written once against ProviderCase: how to start the provider's
// fake server, which instance the stack seeds for it, how a story's message becomes that provider's
// inbound request (route, body, headers), and how to read what the fake received. Adding a provider
// to the suites is adding its entry to PROVIDERS (with its fake in test/fakes/).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { GatewayProvider } from '../../adapters/gateway/gateway-client.js';
import { evolutionEvent, type FakeEvolution, signEvolutionJwt, startFakeEvolution } from '../fakes/evolution-server.js';
import { FakeGateway, type FakeMedia } from '../fakes/fake-gateway.js';
import type { Stack } from './stack.js';

/** One message of a story, said the provider-free way. */
export interface StoryMessage {
  /** The lead's phone, digits (in a group: the participant's). */
  phone: string;
  /** Default ''. For a medium, its caption. */
  text?: string;
  /** Default `text`. */
  kind?: 'text' | 'audio';
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
  templates?: Record<string, { name: string; language: string }>;
}

export interface ProviderCase {
  name: GatewayProvider;
  /** What the provider can tell (CONTRACT §11: where it cannot, the stories that need it are skipped, saying so). */
  can: {
    /** It reports messages a person typed on the clinic's phone (takeover, operator commands). */
    operatorMessages: boolean;
    /** It echoes LeadFlow's own API sends as inbound messages (marked sent by the API). */
    apiEchoes: boolean;
    /** Group chats reach the webhook. */
    groups: boolean;
  };
  startFake(): Promise<ProviderFake>;
  instance(fake: ProviderFake): ProviderInstanceSeed;
  /** The request of one story message to `instance`. */
  inbound(message: StoryMessage, instance: SeededInstance): InboundCall;
  /** A request that holds no message (a delivery or read receipt) to `instance`, and the answer's body it gets. */
  receipt(instance: SeededInstance): { call: InboundCall; answer: unknown };
  /** `call` with its authentication broken (a wrong token or signature): 401. */
  forge(call: InboundCall): InboundCall;
  /** Every send the fake answered with success, in arrival order. */
  sent(fake: ProviderFake, instance: SeededInstance): SentMessage[];
  /** Media references the fake was asked to download, in order. */
  downloads(fake: ProviderFake): string[];
  /** The fake serves `media` for the reference `ref`. */
  setMedia(fake: ProviderFake, ref: string, media: FakeMedia): void;
  /** Forgets every recorded request. */
  reset(fake: ProviderFake): void;
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
    const body = uazapiFixture(message.group ? 'group-text' : kind === 'audio' ? 'audio-ptt' : 'text-conversation');
    const id = message.id ?? freshId(kind === 'audio' ? '3EB0AUD' : '3EB0TXT');
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
      ...(kind === 'audio' ? { mediaRef: id } : {}),
    };
  },
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
  downloads: (fake) => (fake as FakeGateway).requestsTo('/message/download').map((r) => r.body.id),
  setMedia: (fake, ref, media) => void (fake as FakeGateway).setMedia(ref, media),
  reset(fake) {
    (fake as FakeGateway).requests.length = 0;
  },
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
 * (adapters/gateway/evolution/evolution-events.ts): a `messages.upsert` with fromMe is a person on
 * another device of the clinic's account, so the operator's stories hold; its own API sends are
 * never echoed as messages (they fire `send.message`, which starts nothing), so the echo story
 * cannot be told on it.
 */
const evolution: ProviderCase = {
  name: 'evolution',
  can: { operatorMessages: true, apiEchoes: false, groups: true },
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
    const id = message.id ?? freshId(from === 'api' ? '3EB0' : kind === 'audio' ? '3A7CAUD' : '3A5FTXT');
    const fixture = message.group
      ? 'group'
      : from === 'operator'
        ? 'from-me-phone'
        : from === 'api'
          ? 'from-me-api'
          : kind === 'audio'
            ? 'audio'
            : 'text';
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
      ...(kind === 'audio' ? { mediaRef: id } : {}),
    };
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
      }));
  },
  downloads: (fake) => (fake as FakeEvolution).requestsTo('/chat/getBase64FromMediaMessage/').map((r) => r.body?.message?.key?.id),
  setMedia: (fake, ref, media) => void (fake as FakeEvolution).setMedia(ref, media),
  reset(fake) {
    (fake as FakeEvolution).requests.length = 0;
  },
};

/** The providers the e2e agent and intake suites run over. */
export const PROVIDERS: readonly ProviderCase[] = [uazapi, evolution];

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
  const res = await fetch(`${stack.url}${call.path}`, {
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
