// The webhook authentication modes a host makes available to flows, as NodeRegistry holds node
// types: the engine's `none` and `secret` are always there; the host registers the rest.
import { noneAuth, secretAuth } from './webhook-auth.js';
import type { WebhookAuthMode } from './webhook-auth-mode.js';

/**
 * Header names never recorded with an execution, whatever the flow's auth mode: the usual carriers
 * of credentials. Lower case. Modes add their own (`WebhookAuthMode.headersNeverRecorded`).
 */
export const GENERIC_SECRET_HEADERS: readonly string[] = ['authorization', 'cookie', 'x-webhook-secret', 'token', 'x-api-key'];

/** A mode name: lower case letters, digits and dashes, starting with a letter. */
export const AUTH_MODE_NAME = /^[a-z][a-z0-9-]*$/;

/**
 * The registry of webhook authentication modes, keyed by name. Built-ins first (`none`, `secret`),
 * then the host's modes in registration order.
 *
 * @example
 * const modes = new WebhookAuthModes([signatureAuth]);
 * modes.get('signature'); // the mode; modes.get('nope') is undefined
 */
export class WebhookAuthModes {
  private readonly byName = new Map<string, WebhookAuthMode>();

  /** The built-ins plus `modes`; throws like `register`. */
  constructor(modes: Iterable<WebhookAuthMode> = []) {
    for (const mode of [noneAuth, secretAuth, ...modes]) this.register(mode);
  }

  /** Adds a mode. Throws when its name is taken or not a valid mode name. */
  register(mode: WebhookAuthMode): this {
    if (!AUTH_MODE_NAME.test(mode.name)) throw new Error(`webhook auth mode name "${mode.name}" must match ${AUTH_MODE_NAME}`);
    if (this.byName.has(mode.name)) throw new Error(`webhook auth mode "${mode.name}" is registered twice`);
    this.byName.set(mode.name, mode);
    return this;
  }

  /** The mode named `name`, or undefined when none is registered under it. */
  get(name: string): WebhookAuthMode | undefined {
    return this.byName.get(name);
  }

  /** Registered names: built-ins first, then in registration order. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /** Lower-case header names never recorded: the generic ones, then each registered mode's. */
  headersNeverRecorded(): Set<string> {
    const declared = [...this.byName.values()].flatMap((mode) => mode.headersNeverRecorded ?? []);
    return new Set([...GENERIC_SECRET_HEADERS, ...declared].map((name) => name.toLowerCase()));
  }

  /**
   * The message for a flow whose `auth` names no registered mode (what `buildWebhookApp` throws and
   * a host reports when it loads flows); undefined when `mode` is registered.
   */
  unknownModeMessage(flow: string, mode: string): string | undefined {
    if (this.byName.has(mode)) return undefined;
    return `flow "${flow}": webhook auth "${mode}" is not a registered mode (registered: ${this.names().join(', ')})`;
  }
}
