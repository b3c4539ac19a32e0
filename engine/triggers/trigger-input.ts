// The trigger an execution recorded, as input for starting it again (replay: CLI and admin HTTP).
import type { TriggerInput } from '../engine-options.js';
import type { ExecutionRecord, JsonObject, JsonValue } from '../types.js';

function isObject(value: unknown): value is JsonObject {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}

/**
 * `body`, `headers`, `query`, `auth` and `schedule` (the tick of a schedule trigger) of the recorded trigger. Credentials were never recorded
 * (secret headers dropped, a credential in the body kept as "***" by its auth mode): a replay runs on what the original
 * authentication established (`auth`), it is not authenticated again. `replay_of` names the recorded
 * execution (seen as `trigger.replay_of`: a flow's dedupe can take over that execution's marks).
 */
export function recordedTriggerInput(record: ExecutionRecord): TriggerInput {
  const trigger = (isObject(record.trigger) ? record.trigger : {}) as Record<string, JsonValue | undefined>;
  const strings = (value: JsonValue | undefined): Record<string, string> =>
    isObject(value) ? Object.fromEntries(Object.entries(value).filter(([, v]) => typeof v === 'string') as Array<[string, string]>) : {};
  return {
    body: trigger.body ?? null,
    headers: strings(trigger.headers),
    query: strings(trigger.query),
    ...(isObject(trigger.auth) ? { auth: trigger.auth } : {}),
    ...(isObject(trigger.schedule) ? { schedule: trigger.schedule } : {}),
    replay_of: record.id,
  };
}
