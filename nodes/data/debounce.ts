import { Type } from '../../engine/typebox.js';
import { type JsonObject, type JsonValue } from '../../engine/types.js';
import { defineServiceNode } from '../services.js';

/** Shortest life of a buffer nobody drains (10 × max hold when that is longer). */
const MIN_BUFFER_TTL_MS = 3_600_000;
/** How often the drain looks again while interrupted executions of the flow hold live leases, ms. */
const PEER_RECHECK_MS = 1_000;
/** Time an interrupted execution gets, once its lease lapsed, to be taken over and buffer its message, ms. */
const PEER_CATCH_UP_MS = 3_000;
/** The drain stops waiting for interrupted executions this long after their leases lapsed (nobody took them), ms. */
const PEER_GIVE_UP_MS = 30_000;

/**
 * Memory of one debounce step across its suspension (`ctx.state`): the message was pushed, and
 * when to look again. ms since epoch.
 */
interface DebounceState extends JsonObject {
  pushed: true;
  pushed_at: number;
  first_at: number;
  wake_at: number;
  // peers_until (number, optional): latest lease end of interrupted executions seen at the drain (peerWait).
}

function savedState(state: JsonObject | undefined): DebounceState | undefined {
  return state?.pushed === true && typeof state.wake_at === 'number' && typeof state.first_at === 'number' ? (state as DebounceState) : undefined;
}

/**
 * Before draining: when another execution of the flow was cut off mid-step (its process died, maybe
 * on another machine) it may carry a message of this burst it has not buffered yet. The drain then
 * waits until that execution has been taken over (its lease lapsed) and had PEER_CATCH_UP_MS to
 * buffer, so the burst stays one answer. Returns when to look again, or null to drain now. Records
 * the latest lease end seen in `state.peers_until`. A peer that renews its lease before it lapses
 * was alive (a late renewal): no wait. After PEER_GIVE_UP_MS past the lapse, drains anyway.
 */
function peerWait(until: number | null, state: DebounceState): number | null {
  const now = Date.now();
  if (until !== null) {
    const before = state.peers_until;
    state.peers_until = Math.max(typeof before === 'number' ? before : 0, until);
    if (now >= until + PEER_GIVE_UP_MS) return null;
    return now < until ? Math.min(until + PEER_CATCH_UP_MS, now + PEER_RECHECK_MS) : Math.max(now + PEER_RECHECK_MS, until + PEER_CATCH_UP_MS);
  }
  // None in doubt now. Taken over after their lease lapsed: give them the catch-up time first.
  const seen = state.peers_until;
  if (typeof seen === 'number' && now >= seen && now < seen + PEER_CATCH_UP_MS) return seen + PEER_CATCH_UP_MS;
  return null;
}

/**
 * `debounce`: groups a lead's consecutive messages. Pushes this message into the buffer `key` (once
 * per `message_id`), suspends until `quiet_ms` pass without a newer one or the burst is `max_hold_ms`
 * old, then lets exactly one execution of the burst (the last message's, or the first awake past the
 * max hold) drain every buffered message in arrival order: `{leader: true, messages, ids}`; the
 * others get `{leader: false}` with empty lists. The wait is stored, so a restart still answers the
 * burst once; the drain waits for executions of the flow cut off mid-step to be taken over
 * (peerWait). Needs the key-value store.
 */
export default defineServiceNode({
  type: 'debounce',
  services: ['kv'],
  description:
    "Groups a lead's consecutive messages: pushes this message into the buffer `key` (by `message_id`, so a redelivered message is kept once), waits durably until `quiet_ms` pass without a newer message (each new message restarts the quiet period) or the burst is `max_hold_ms` old, then lets exactly one execution of the burst - the one whose message came last, or whichever wakes first once the max hold is reached - take every buffered message in order. The others output `leader: false` and should end. The wait is stored, so a restart during it still answers the burst, once; and when another execution of the flow was cut off mid-step by a process that died (here or on another machine), the drain waits until it is taken over and has buffered its message (at most 30 s past its lease).",
  params: Type.Object(
    {
      key: Type.String({ minLength: 1, description: 'Buffer key, one per conversation (e.g. clinic and phone). Messages with the same key are grouped.', examples: ['{{ steps.lead.clinica_id }}:{{ steps.msg.phone }}'] }),
      message_id: Type.String({ minLength: 1, description: "The message's unique id from the provider; the same id twice is buffered once.", examples: ['{{ trigger.body.message.messageid }}'] }),
      message: Type.Unknown({ description: 'What to buffer for this message (any JSON); the leader gets these back in arrival order.', default: null, examples: [{ type: 'text', text: '{{ trigger.body.message.text }}' }] }),
      quiet_ms: Type.Integer({ minimum: 0, maximum: 24 * 3600 * 1000, default: 8000, description: 'Quiet period, ms: the burst is answered when no newer message came for this long. 0: answer at once.', examples: ['{{ env.LEADFLOW_DEBOUNCE_MS }}', 8000] }),
      max_hold_ms: Type.Integer({ minimum: 0, maximum: 24 * 3600 * 1000, default: 30000, description: 'Longest a burst is held, ms from its first message, however often new messages restart the quiet period.', examples: ['{{ env.LEADFLOW_DEBOUNCE_MAX_MS }}', 30000] }),
    },
    { additionalProperties: false },
  ),
  output: {
    description:
      '`{leader, messages, ids}`: `leader` true for the one execution that answers the burst, with every buffered `message` and its `message_id` in arrival order; false (empty lists) for the others, whose messages a leader answers.',
  },
  examples: [
    {
      title: "Group a lead's messages before the agent answers",
      step: {
        id: 'burst',
        type: 'debounce',
        params: {
          key: '{{ vars.clinic_id }}:{{ vars.phone }}',
          message_id: '{{ trigger.body.message.messageid }}',
          message: { text: '{{ trigger.body.message.text }}' },
          quiet_ms: '{{ env.LEADFLOW_DEBOUNCE_MS }}',
          max_hold_ms: '{{ env.LEADFLOW_DEBOUNCE_MAX_MS }}',
        },
      },
    },
  ],
  async run(params, ctx) {
    const kv = ctx.services.kv;
    let state = savedState(ctx.state);
    if (!state) {
      // First entry: push once. A re-run after a crash before the state was saved pushes again,
      // which the store ignores (same id).
      const now = Date.now();
      const ttl = Math.max(MIN_BUFFER_TTL_MS, 10 * params.max_hold_ms);
      const pushed = await kv.bufferPush(params.key, params.message_id, (params.message ?? null) as JsonValue, now, ttl);
      const wakeAt = Math.min(pushed.last_at + params.quiet_ms, pushed.first_at + params.max_hold_ms);
      state = { pushed: true, pushed_at: now, first_at: pushed.first_at, wake_at: wakeAt };
    }
    // Resumed early (e.g. the engine shut down and handed the execution back as due now): wait on.
    if (Date.now() < state.wake_at) return ctx.suspend(state.wake_at, state);
    const waitFor = peerWait(ctx.interruptedPeersUntil ? await ctx.interruptedPeersUntil() : null, state);
    if (waitFor !== null) return ctx.suspend(waitFor, state);
    const drained = await kv.bufferDrainIfLast(params.key, params.message_id, Date.now(), params.max_hold_ms);
    if (!drained) return { leader: false, messages: [], ids: [] };
    return { leader: true, messages: drained.map((e) => e.payload), ids: drained.map((e) => e.id) };
  },
});
