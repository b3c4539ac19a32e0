// One message to a lead on a Cloud API number, under Meta's 24-hour rule (CONTRACT §11, reference
// §2.10): free text while the lead's customer-service window is open, else the approved template
// given as the fallback. Decision order:
//   1. window closed (CustomerWindow) and a fallback given -> the template, no free-text attempt;
//   2. otherwise the free text (also when the window looks closed but no fallback exists: Meta is the
//      judge, e.g. the lead wrote through a message LeadFlow never saw);
//   3. Meta answers OutsideWindowError (131047) and a fallback given -> the template, once; without a
//      fallback the error is thrown as is (never retried).
// The typing delay and indicator apply to the free text only. The result says which went out and
// the text the lead received (the template's rendered body), for memory. A reply split into several
// texts should stop after a template went out: the remaining texts would be refused the same way.
import type { GatewayCallOptions, SendTextResult } from '../gateway-client.js';
import { OutsideWindowError } from './errors.js';
import type { CloudClient, CloudSendTextRequest } from './client.js';
import { type CloudTemplate, renderTemplateText } from './templates.js';
import type { CustomerWindow } from './customer-window.js';

/** What sendTextOrTemplate sends with: the client, the window it reads, the instance it is tracked under and the clock. */
export interface WindowedSender {
  client: Pick<CloudClient, 'sendText' | 'sendTemplate'>;
  window: Pick<CustomerWindow, 'isOpen'>;
  /** The instance the window is tracked under (its id in `instancias_whatsapp`). */
  instanceId: number | string;
  /** Default Date.now. */
  now?: () => number;
}

/** The template to send when free text may not go, and its body parameters in order. */
export interface TemplateFallback {
  template: CloudTemplate;
  parameters: string[];
}

/** A send under the 24-hour rule: the send's answer, which went out (`sent_as`) and what the lead received. */
export interface WindowedSendResult extends SendTextResult {
  sent_as: 'text' | 'template';
  /** The template's name when one went out. */
  template?: string;
  /** What the lead received: the text, or the template's rendered body. */
  text: string;
}

/** Sends `request` as free text or, where the window is closed or Meta refuses it (131047), as `fallback`'s template, once (see the file's head). */
export async function sendTextOrTemplate(
  sender: WindowedSender,
  request: CloudSendTextRequest,
  fallback?: TemplateFallback,
  options: GatewayCallOptions = {},
): Promise<WindowedSendResult> {
  const now = (sender.now ?? Date.now)();
  const viaTemplate = async (): Promise<WindowedSendResult> => {
    const { template, parameters } = fallback!;
    const sent = await sender.client.sendTemplate(
      { number: request.number, template, parameters, ...(request.send_id ? { send_id: request.send_id } : {}) },
      options,
    );
    return { ...sent, sent_as: 'template', template: template.name, text: renderTemplateText(template, parameters) };
  };
  if (fallback && !(await sender.window.isOpen(sender.instanceId, request.number, now))) return viaTemplate();
  try {
    const sent = await sender.client.sendText(request, options);
    return { ...sent, sent_as: 'text', text: request.text };
  } catch (err) {
    if (fallback && err instanceof OutsideWindowError) return viaTemplate();
    throw err;
  }
}
