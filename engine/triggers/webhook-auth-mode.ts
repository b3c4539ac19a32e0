// The contract of a webhook authentication mode: what a flow names as `trigger.webhook.auth`. The
// engine ships `none` and `secret` (webhook-auth.ts); a host registers its own modes beside the
// adapters that know the credential (WebhookAuthModes, auth-modes.ts), as it registers node types.
//
// A request meets a mode's hooks in this order (buildWebhookApp, webhook-app.ts):
//   beforeBody (headers and query, nothing read yet)  -> 'denied': 401
//   verifyRawBody (only after 'need-body')            -> false: 401, before the body is parsed as JSON
//   withBody (the parsed JSON, and the raw bytes)     -> a denial: 401; a grant: the execution starts;
//                                                        events: one execution per event (0 or more)
// A grant's `input` schema is checked like the flow's `trigger.input` (422, before anything is
// recorded). A rejected request changes nothing: no execution is recorded, nothing is logged but
// the flow, the path and the client address. Hooks never log or return the credential they checked.
import type { JsonObject, JsonValue } from '../types.js';

/** What an authentication hook may read of the request: its headers and its parsed query. */
export interface AuthRequest {
  /** A header's value, by case-insensitive name; undefined when absent. */
  header(name: string): string | undefined;
  /** The query string, one value per name (repeated names are not strings). */
  query: Record<string, unknown>;
}

/** What the server hands every hook besides the request. */
export interface WebhookAuthContext {
  /** The name of the flow whose webhook was called. */
  flow: string;
  /** The shared webhook secret (LEADFLOW_WEBHOOK_SECRET); undefined when the host configured none. */
  secret: string | undefined;
}

/**
 * `beforeBody`'s answer: `ok` (accepted so far: the body is read and `withBody` runs when the mode
 * has one), `denied` (401 before the body is read), `need-body` (undecided: `verifyRawBody` decides
 * from the raw bytes).
 */
export type BeforeBodyDecision = 'ok' | 'denied' | 'need-body';

/** An accepted request: the body the execution records, and what the flow reads as `trigger.auth`. */
export interface AuthGrant {
  /** The body to record and run on, with any credential it carried masked (e.g. as "***"). */
  body: JsonValue;
  /** What the authentication established (e.g. `{account_id, tenant_id}`); never a credential. */
  auth?: JsonObject;
  /**
   * A JSON Schema `body` must match besides the flow's `trigger.input`, for a mode that knows the
   * shape of what its sender posts: a mismatch answers 422 with each path, before anything is
   * recorded. Checked only on the way in (a replay or a flow test case runs without it).
   */
  input?: Record<string, unknown>;
}

/**
 * An accepted request that holds several events (a sender that batches them), each its own grant:
 * each becomes its own execution, started in order. With exactly one, the request is answered as
 * the flow says (like a grant); otherwise, once every execution is recorded, 200 `{"status":
 * "accepted", "executions": n}` — with none (e.g. the request held only delivery receipts) nothing
 * starts. Every event's `input` is checked before the first is recorded (422; with several events
 * each path names its event: `[1].path`).
 */
export interface AuthEvents {
  events: AuthGrant[];
}

/** `withBody`'s refusal (answer 401): why, for the log line; never the credential itself. */
export interface AuthDenial {
  /** E.g. `missing or unknown account token`; logged as `webhook rejected: <denied>`. */
  denied: string;
}

/** One way of authenticating a webhook request, selected by a flow's `trigger.webhook.auth`. */
export interface WebhookAuthMode {
  /** The name flows use (`auth: <name>`): lower case letters, digits and dashes, unique per host. */
  name: string;
  /** One sentence on what a request must carry (listed in error messages and docs). */
  description: string;
  /**
   * Header names (case-insensitive) that carry this mode's credentials: never recorded with an
   * execution, whichever flow was called. The generic ones (GENERIC_SECRET_HEADERS) need no listing.
   */
  headersNeverRecorded?: readonly string[];
  /**
   * Largest body, bytes, its routes accept (413 above it); absent: the app's limit (BODY_LIMIT_BYTES,
   * 1 MiB). For senders that batch many events into one delivery (several megabytes).
   */
  maxBodyBytes?: number;
  /** Decides from headers and query alone; absent: `ok`. Must not throw. */
  beforeBody?(req: AuthRequest, ctx: WebhookAuthContext): BeforeBodyDecision;
  /**
   * Only after `beforeBody` answered `need-body`: whether the raw body (bytes as received, empty for
   * a GET or DELETE) authenticates the request, e.g. a signature over it. Required when `beforeBody`
   * can answer `need-body`. Must not throw.
   */
  verifyRawBody?(req: AuthRequest, raw: Buffer, ctx: WebhookAuthContext): boolean;
  /**
   * Runs on every request that passed the checks before it, with the parsed body (`{}` when none was
   * sent) and the raw bytes it was parsed from (empty for a GET or DELETE: e.g. for a signature
   * whose key depends on the body); absent: the body is recorded as sent and `trigger.auth` stays
   * unset. May reach a dependency: a rejection answers 500 (or 503 when the dependency is
   * unreachable), nothing recorded.
   */
  withBody?(req: AuthRequest, body: JsonValue, ctx: WebhookAuthContext, raw: Buffer): Promise<AuthGrant | AuthDenial | AuthEvents>;
}
