// The `agenda` of CONTRACT.md §12 (adapters/calendar/agenda-config.ts): defaults, each provider's
// block, every problem named at its field, and never a credential in a message.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AgendaConfigError, agendaHours, formatAgenda, parseAgenda } from '../../adapters/calendar/agenda-config.js';

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const KEY_FILE = {
  type: 'service_account',
  project_id: 'clinica-123',
  private_key_id: 'abc123',
  private_key: PEM,
  client_email: 'agenda@clinica-123.iam.gserviceaccount.com',
  token_uri: 'https://oauth2.googleapis.com/token',
};
const API_KEY = 'cal_live_s3cr3t_value_0123456789';

function problemsOf(value: unknown): string[] {
  try {
    parseAgenda(value);
  } catch (err) {
    if (err instanceof AgendaConfigError) return err.problems.map((p) => `${p.path.join('.')}: ${p.message}`);
    throw err;
  }
  throw new Error('expected an AgendaConfigError');
}

describe('parseAgenda', () => {
  it('no value is no calendar; an empty object is interno with every default', () => {
    for (const none of [null, undefined, '', '  ', 'null']) expect(parseAgenda(none)).toBeNull();
    expect(parseAgenda({})).toEqual({
      provider: 'interno',
      duracao_min: 60,
      intervalo_min: 30,
      antecedencia_min: 120,
      dias: 14,
      vagas: 1,
      horario: null,
      google: null,
      calcom: null,
    });
    expect(parseAgenda('{"provider": "interno", "vagas": 2, "duracao_min": 45}')).toMatchObject({
      vagas: 2,
      duracao_min: 45,
      intervalo_min: 30,
    });
  });

  it('google: the key file (object or JSON text) keeps client_email, private_key and its id; URLs default', () => {
    const config = parseAgenda({
      provider: 'google',
      google: { calendar_id: 'clinica@group.calendar.google.com', service_account: JSON.stringify(KEY_FILE) },
    });
    expect(config!.google).toEqual({
      calendar_id: 'clinica@group.calendar.google.com',
      service_account: { client_email: KEY_FILE.client_email, private_key: PEM.trim(), private_key_id: 'abc123' },
      base_url: 'https://www.googleapis.com/calendar/v3',
      token_url: 'https://oauth2.googleapis.com/token',
    });
    const local = parseAgenda({
      provider: 'google',
      google: {
        calendar_id: 'c',
        service_account: KEY_FILE,
        base_url: 'http://127.0.0.1:9000/calendar/v3/',
        token_url: 'http://127.0.0.1:9000/token',
      },
    });
    expect(local!.google).toMatchObject({ base_url: 'http://127.0.0.1:9000/calendar/v3', token_url: 'http://127.0.0.1:9000/token' });
  });

  it('calcom: api_key, event_type_id (number or digits) and the default base_url', () => {
    expect(parseAgenda({ provider: 'calcom', calcom: { api_key: API_KEY, event_type_id: '123' } })!.calcom).toEqual({
      api_key: API_KEY,
      event_type_id: 123,
      base_url: 'https://api.cal.com/v2',
    });
  });

  it('names every problem at its field', () => {
    expect(
      problemsOf({
        provider: 'outlook',
        duracao_min: 0,
        intervalo_min: 7.5,
        antecedencia_min: -1,
        dias: 365,
        vagas: '2',
        horario: { timezone: 'Mars/Olympus', seg: '09:00-08:00' },
        extra: true,
      }),
    ).toEqual([
      'extra: is not a known field (provider, duracao_min, intervalo_min, antecedencia_min, dias, vagas, horario, google, calcom)',
      'provider: must be one of interno, google, calcom, got "outlook"',
      'duracao_min: must be an integer from 5 to 1440, got 0',
      'intervalo_min: must be an integer from 5 to 1440, got 7.5',
      'antecedencia_min: must be an integer from 0 to 43200, got -1',
      'dias: must be an integer from 1 to 90, got 365',
      'vagas: must be an integer from 1 to 100, got "2"',
      'horario.timezone: "Mars/Olympus" is not an IANA time zone (e.g. "America/Sao_Paulo")',
      'horario.seg: "09:00-08:00": the end must be after the start (to open past midnight, end the day at 24:00 and start the next at 00:00)',
    ]);
    expect(problemsOf({ provider: 'google' })).toEqual([
      'google: is required when provider is google (calendar_id, service_account, base_url, token_url)',
    ]);
    expect(problemsOf({ provider: 'calcom', calcom: { event_type_id: 0, base_url: 'ftp://x' } })).toEqual([
      'calcom.api_key: is required',
      'calcom.event_type_id: must be a positive integer, got 0',
      'calcom.base_url: must be an http:// or https:// URL, got "ftp://x"',
    ]);
    expect(problemsOf({ provider: 'google', google: { service_account: { ...KEY_FILE, type: 'user', client_email: 'nobody' } } })).toEqual([
      'google.calendar_id: is required',
      'google.service_account.type: must be "service_account" (a service account\'s key file), got "user"',
      'google.service_account.client_email: must be an e-mail address, got "nobody"',
    ]);
    expect(problemsOf('[1, 2]')).toEqual([': must be an object (like {"provider": "interno", "duracao_min": 60})']);
  });

  it('never shows a credential: not a bad private key, not the API key, not JSON text holding them', () => {
    const badPem = `-----BEGIN PRIVATE KEY-----\nMIIEvQ-super-secret-material\n-----END PRIVATE KEY-----`;
    const messages = [
      problemsOf({ provider: 'google', google: { calendar_id: 'c', service_account: { ...KEY_FILE, private_key: badPem } } }),
      problemsOf({
        provider: 'google',
        google: { calendar_id: 'c', service_account: `{"private_key": "${'x'.repeat(10)}super-secret-material` },
      }),
      problemsOf(`{"provider": "calcom", "calcom": {"api_key": "${API_KEY}", "event_type_id": 1,}`),
      problemsOf({ provider: 'calcom', calcom: { api_key: API_KEY, event_type_id: 1, base_url: 'nope' } }),
      problemsOf({ provider: 'calcom', calcom: { api_key: 12345678, event_type_id: 1 } }),
    ];
    expect(messages).toEqual([
      ['google.service_account.private_key: is not a PEM private key (copy it from the key file as it is)'],
      ["google.service_account: is not JSON (the service account's JSON key file)"],
      [': is not JSON (like {"provider": "interno", "duracao_min": 60})'],
      ['calcom.base_url: must be an http:// or https:// URL, got "nope"'],
      ['calcom.api_key: must be non-empty text'],
    ]);
    const text = JSON.stringify(messages);
    for (const secret of ['super-secret', API_KEY, '12345678']) expect(text).not.toContain(secret);
  });

  it("the normal form reads back the same; the hours default to the clinic's", () => {
    const config = parseAgenda({
      provider: 'calcom',
      vagas: 3,
      horario: { timezone: 'america/new_york', seg: '9:00-12:00' },
      calcom: { api_key: API_KEY, event_type_id: 7 },
    })!;
    const text = formatAgenda(config);
    expect(parseAgenda(text)).toEqual(config);
    expect(JSON.parse(text)).toMatchObject({
      provider: 'calcom',
      vagas: 3,
      horario: { timezone: 'America/New_York', seg: '09:00-12:00', dom: '' },
    });
    expect(agendaHours(config, '{"seg": "08:00-18:00"}')!.timezone).toBe('America/New_York');
    const own = parseAgenda({})!;
    expect(agendaHours(own, '{"timezone": "America/Manaus", "seg": "08:00-18:00"}')!.timezone).toBe('America/Manaus');
    expect(agendaHours(own, null)).toBeNull();
  });
});
