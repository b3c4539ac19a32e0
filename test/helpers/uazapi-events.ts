// The gateway's real text-message event (test/fixtures/uazapi/text-conversation.json) from a lead to
// a clinic's instance, for tests that drive /leadagent: the lead's phone, the text, the instance
// token and number; a fresh message id unless one is given.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURE = join(import.meta.dirname, '../fixtures/uazapi/text-conversation.json');
let seq = 0;
/** The fixture's text, read on first use (benchmarks build thousands of events). */
let fixtureText: string | undefined;

export interface LeadTextEvent {
  phone: string;
  text: string;
  /** The instance token the body carries. */
  token: string;
  /** The instance's own number (`owner`). */
  owner: string;
  /** Default: a fresh `3EB0…` id, unique in this process. */
  messageid?: string;
}

export function leadTextEvent(options: LeadTextEvent): Record<string, any> {
  fixtureText ??= readFileSync(FIXTURE, 'utf8');
  const body = JSON.parse(fixtureText);
  const jid = `${options.phone}@s.whatsapp.net`;
  body.token = options.token;
  body.owner = options.owner;
  body.chat.wa_chatid = jid;
  Object.assign(body.message, {
    messageid: options.messageid ?? `3EB0TEXT${process.pid}${String(++seq).padStart(8, '0')}`,
    chatid: jid,
    sender_pn: jid,
    fromMe: false,
    wasSentByApi: false,
    text: options.text,
    content: options.text,
  });
  return body;
}
