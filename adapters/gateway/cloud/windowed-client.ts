// The GatewayClient of one Cloud API instance as the nodes see it: CloudClient's calls, and the
// 24-hour rule (CONTRACT §11) applied to a text that names a `template` (SendTextRequest.template):
//   - the purpose's template is the instance's (`templates` column: name, language, optional body and
//     parameter_names); the instance has none for it -> the text is sent as is (Meta is the judge);
//   - otherwise sendTextOrTemplate (windowed-send.ts): the lead's window closed (CustomerWindow on the
//     key-value store, under the instance id) -> the template, without trying the text; open, or
//     unknown (no key-value store or no instance id: the window is taken as open) -> the text, and on
//     Meta's OutsideWindowError (131047) the template instead, once.
//   The result says which went out (`sent_as`) and what the lead received (`text`: the text, or the
//   template's rendered body; `[template <name>]` without a body).
// A text without `template` is sent as is: an OutsideWindowError then fails the call.
// A text that named a template and went out as text is noted (sent-text-notes.ts: its purpose and
// parameters, under its wamid, with this client's send group), so a late 131047 (a `failed` status,
// late-failures.ts) sends the template then; a note that cannot be written is logged, never thrown
// (the text went: failing the call would send it again).
// Template parameters are sent as given, except that line breaks, tabs and runs of spaces become
// one space (Meta refuses them in a body parameter) and an empty one becomes "-".
import { randomBytes } from 'node:crypto';
import type { KeyValue } from '../../kv/key-value.js';
import type {
  DownloadedMedia,
  GatewayCallOptions,
  GatewayClient,
  SendTemplateRequest,
  SendTextRequest,
  SendTextResult,
  TemplateSet,
} from '../gateway-client.js';
import type { CloudClient } from './client.js';
import { sendTextOrTemplate, type TemplateFallback } from './windowed-send.js';
import { CustomerWindow } from './customer-window.js';
import { SentTextNotes } from './sent-text-notes.js';
import type { GatewayLogger } from '../http-call.js';

/** What the windowed client reads besides its CloudClient: the instance's templates, and where the 24-hour window is kept (instance id, key-value store). */
export interface CloudGatewayClientOptions {
  /** The instance's id: the window's key. Absent: the window is unknown (taken as open). */
  instanceId?: number;
  templates: TemplateSet | null;
  kv?: KeyValue;
  /** The clock the window is read against, ms since the epoch (the host's). Default Date.now. */
  now?: () => number;
  /** Where a note that could not be written is reported. */
  logger?: GatewayLogger;
}

const OPEN_WINDOW = { isOpen: async () => true };

/** A template body parameter as Meta accepts it: one line, no run of more than one space, never empty. */
export function templateParameter(value: string): string {
  const flat = String(value ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return flat === '' ? '-' : flat;
}

/** The GatewayClient of one Cloud API instance: CloudClient's calls with the 24-hour rule applied to a text that names a template (see the file's head). */
export class CloudGatewayClient implements GatewayClient {
  readonly provider = 'cloud' as const;
  readonly serverUrl: string;
  readonly #client: CloudClient;
  readonly #options: CloudGatewayClientOptions;
  /** This client's sends (one gateway.send step): the late refusal of several of its texts sends one template. */
  readonly #group = randomBytes(8).toString('hex');

  constructor(client: CloudClient, options: CloudGatewayClientOptions) {
    this.#client = client;
    this.#options = options;
    this.serverUrl = client.serverUrl;
  }

  async sendText(request: SendTextRequest, options: GatewayCallOptions = {}): Promise<SendTextResult> {
    const { template: intent, ...text } = request;
    if (!intent) return this.#client.sendText(text, options);
    const ref = this.#options.templates?.[intent.purpose];
    if (!ref) return { ...(await this.#client.sendText(text, options)), sent_as: 'text', text: text.text };
    const fallback: TemplateFallback = { template: ref, parameters: intent.parameters.map(templateParameter) };
    const { kv, instanceId, now } = this.#options;
    const window = kv && instanceId !== undefined ? new CustomerWindow(kv, now ? { now } : {}) : OPEN_WINDOW;
    const sender = { client: this.#client, window, instanceId: instanceId ?? 0, ...(now ? { now } : {}) };
    const sent = await sendTextOrTemplate(sender, text, fallback, options);
    if (sent.sent_as === 'text' && sent.messageid && kv && instanceId !== undefined)
      await this.#note(kv, instanceId, sent.messageid, text.number, { purpose: intent.purpose, parameters: fallback.parameters });
    return { messageid: sent.messageid, answer: sent.answer, sent_as: sent.sent_as, text: sent.text };
  }

  /** Notes what the text `wamid` stood for (see the file's head); a failure is logged, never thrown. */
  async #note(kv: KeyValue, instanceId: number, wamid: string, number: string, what: { purpose: keyof TemplateSet; parameters: string[] }) {
    try {
      await new SentTextNotes(kv, this.#options.now ? { now: this.#options.now } : {}).note(instanceId, wamid, number, {
        ...what,
        group: this.#group,
      });
    } catch (err) {
      this.#options.logger?.warn({ instance_id: instanceId, error: (err as Error).message }, 'noting a sent text failed');
    }
  }

  sendEvidenceKey(request: SendTextRequest): string | null {
    return this.#client.sendEvidenceKey(request);
  }

  sendTemplate(request: SendTemplateRequest, options?: GatewayCallOptions): Promise<SendTextResult> {
    return this.#client.sendTemplate(request, options);
  }

  downloadMedia(mediaRef: string, options?: GatewayCallOptions): Promise<DownloadedMedia> {
    return this.#client.downloadMedia(mediaRef, options);
  }

  toJSON(): object {
    return this.#client.toJSON();
  }
}
