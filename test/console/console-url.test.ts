// LEADFLOW_CONSOLE_URL for flows (console/server/console-url.ts): explicit wins; derived from
// PUBLIC_BASE_URL only when the console is served (LEADFLOW_ADMIN_TOKEN); otherwise none.
import { describe, expect, it } from 'vitest';
import { consoleUrlOf, withConsoleUrl } from '../../console/server/console-url.js';

describe('the console address flows link to', () => {
  it('is PUBLIC_BASE_URL/console when the console is on', () => {
    expect(consoleUrlOf({ PUBLIC_BASE_URL: 'https://leads.example.com/', LEADFLOW_ADMIN_TOKEN: 't' })).toBe(
      'https://leads.example.com/console',
    );
  });

  it('is none without the admin token (no console) or without a public address', () => {
    expect(consoleUrlOf({ PUBLIC_BASE_URL: 'https://leads.example.com' })).toBeUndefined();
    expect(consoleUrlOf({ PUBLIC_BASE_URL: 'https://leads.example.com', LEADFLOW_ADMIN_TOKEN: '' })).toBeUndefined();
    expect(consoleUrlOf({ LEADFLOW_ADMIN_TOKEN: 't' })).toBeUndefined();
    expect(consoleUrlOf({ PUBLIC_BASE_URL: '  ', LEADFLOW_ADMIN_TOKEN: 't' })).toBeUndefined();
  });

  it('is LEADFLOW_CONSOLE_URL as set, without trailing slashes, whatever else is set', () => {
    expect(consoleUrlOf({ LEADFLOW_CONSOLE_URL: 'https://painel.example.com/console//' })).toBe('https://painel.example.com/console');
  });

  it('is added to a copy of the environment, never to the one given', () => {
    const env = { PUBLIC_BASE_URL: 'http://10.0.0.5:3000', LEADFLOW_ADMIN_TOKEN: 't' };
    const withUrl = withConsoleUrl(env);
    expect(withUrl.LEADFLOW_CONSOLE_URL).toBe('http://10.0.0.5:3000/console');
    expect(env).not.toHaveProperty('LEADFLOW_CONSOLE_URL');
    const none = { PORT: '3000' };
    expect(withConsoleUrl(none)).toEqual({ PORT: '3000' });
  });
});
