// JSON Schema (TypeBox) of a flow test file, e.g. `flows/tests/<flow>.test.yaml`:
//
//   flow: greet                        # the flow under test (its `name`)
//   cases:
//     - name: a new visitor gets a greeting
//       payload: { nome: Ana }         # trigger body; default {}
//       auth: { instance_id: 7 }       # what the webhook's auth established (`trigger.auth`); default none
//       env: { DELAY_MS: 0 }           # overrides; names the flow (or a flow it calls) declares in `env`
//       mocks: { lookup: { output: { found: false } } }   # or { error: { message, status?, body?, name? } }
//       timeout_ms: 2000               # longest wait for the execution to end; default 10000
//       expect:
//         status: success              # required: success | failed | stopped | waiting
//         stop_reason: ...             # equal
//         error / output / response / vars: subset of the execution's error / output / webhook response / vars
//         steps:                       # step id -> expectations on its (last) run
//           send: { status: success, output: { ... } }
//           remember: { params: { values: { content: "Oi" } } }   # what a (mocked) step was given
//           later: { ran: false }
//         outbound: [ { method: POST, url: ... } ]          # exactly these calls, in order, each a subset
//         # or: outbound: { count: 2, contains: [ ... ] }   # count, and/or these calls in this order among others
//         started: [ { flow: followup, key: "5511…", input: { … } } ]   # flow.start, recorded not made: exactly these, in order
//         cancelled: [ { flow: followup, key: "5511…" } ]             # flow.cancel, recorded not made: exactly these, in order
//
// The TypeScript types below are inferred from the schema; values that are "any JSON" are `unknown`.
import { Type, type Static } from '../typebox.js';

/** Longest `timeout_ms` a case may ask for, ms. */
export const MAX_CASE_TIMEOUT_MS = 600_000;

const AnyJson = (description: string) => Type.Unknown({ description });

/** A step mock: the step is not run and gives exactly one of `output` or `error` instead. */
export const StepMockSchema = Type.Object(
  {
    output: Type.Optional(AnyJson('Output the step gives instead of running.')),
    error: Type.Optional(
      Type.Object(
        {
          message: Type.String({ description: 'Error message.' }),
          status: Type.Optional(Type.Integer({ description: 'HTTP-like status, visible to `retry.when` and `on_error`.' })),
          body: Type.Optional(AnyJson('Error body.')),
          name: Type.Optional(Type.String({ description: 'Error name; default MockError.' })),
        },
        { additionalProperties: false, description: 'Error the step fails with instead of running (no retries).' },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1, description: 'Exactly one of `output` or `error`.' },
);

/** What a case expects of one step (status, output subset …); every field optional. */
export const StepExpectationSchema = Type.Object(
  {
    ran: Type.Optional(Type.Boolean({ description: 'Whether the step ran at all.' })),
    times: Type.Optional(Type.Integer({ minimum: 0, description: 'How many times it ran (foreach bodies run once per item).' })),
    status: Type.Optional(
      Type.Union(
        [Type.Literal('success'), Type.Literal('error'), Type.Literal('stopped'), Type.Literal('waiting'), Type.Literal('running')],
        { description: 'Status of its last run.' },
      ),
    ),
    output: Type.Optional(AnyJson('Subset of the output of its last run.')),
    error: Type.Optional(AnyJson('Subset of the error of its last run ({name, message, status, body}).')),
    params: Type.Optional(
      AnyJson(
        'Subset of the params of its last run, as its expressions resolved them (also for a mocked step: what it would have been given).',
      ),
    ),
  },
  { additionalProperties: false },
);

/** How many outbound calls of a kind a case expects; at least one field. */
export const OutboundCountSchema = Type.Object(
  {
    count: Type.Optional(Type.Integer({ minimum: 0, description: 'Number of recorded outbound calls.' })),
    contains: Type.Optional(
      Type.Array(AnyJson('Subset of one call.'), { description: 'Calls found in this order, others may sit between.' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

/** What a case expects of its execution: status, output, steps, outbound calls. */
export const ExpectationSchema = Type.Object(
  {
    status: Type.Union(
      [Type.Literal('success'), Type.Literal('failed'), Type.Literal('stopped'), Type.Literal('cancelled'), Type.Literal('waiting')],
      { description: 'How the execution ended.' },
    ),
    stop_reason: Type.Optional(Type.String()),
    error: Type.Optional(AnyJson("Subset of the execution's error ({step, name, message, status, body}).")),
    output: Type.Optional(AnyJson("Subset of the execution's output.")),
    response: Type.Optional(AnyJson('Subset of the webhook response a respond step sent ({status, body}).')),
    vars: Type.Optional(AnyJson("Subset of the execution's vars at the end.")),
    steps: Type.Optional(Type.Record(Type.String(), StepExpectationSchema, { description: 'Step id -> expectations.' })),
    outbound: Type.Optional(
      Type.Union([
        Type.Array(AnyJson('Subset of one call ({kind, method, url, headers, body, step}).'), {
          description: 'Exactly these calls in order.',
        }),
        OutboundCountSchema,
      ]),
    ),
    started: Type.Optional(
      Type.Array(AnyJson('Subset of one start ({flow, key, input, step}).'), {
        description: 'Exactly these flow starts (flow.start, recorded, not made), in order.',
      }),
    ),
    cancelled: Type.Optional(
      Type.Array(AnyJson('Subset of one cancel ({flow, key, reason, step}).'), {
        description: 'Exactly these cancels (flow.cancel, recorded, not made), in order.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** One test case: name, payload, env overrides, step mocks, timeout and expectations. */
export const TestCaseSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'Shown in the report; unique in its file.' }),
    payload: Type.Optional(AnyJson('Trigger body; default {}.')),
    auth: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          "What the webhook's authentication established, seen as `trigger.auth` (what the flow's auth mode hands it, e.g. the caller it identified); default none.",
      }),
    ),
    env: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
        description: 'Environment overrides for this case; each name must be declared in `env` by the flow under test or a flow it calls.',
      }),
    ),
    mocks: Type.Optional(Type.Record(Type.String(), StepMockSchema, { description: 'Step id -> replaced output or error.' })),
    timeout_ms: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_CASE_TIMEOUT_MS, description: 'Longest wait for the execution to end; default 10000.' }),
    ),
    expect: ExpectationSchema,
  },
  { additionalProperties: false },
);

/** A flow test file: the flow it tests and its cases. */
export const TestFileSchema = Type.Object(
  {
    flow: Type.String({ minLength: 1, description: 'Name of the flow under test.' }),
    description: Type.Optional(Type.String()),
    cases: Type.Array(TestCaseSchema, { minItems: 1 }),
  },
  { additionalProperties: false },
);

/** A test file as written (validated against TestFileSchema). */
export type TestFile = Static<typeof TestFileSchema>;
/** One case as written. */
export type TestCase = Static<typeof TestCaseSchema>;
/** A case's expectations as written. */
export type Expectation = Static<typeof ExpectationSchema>;
/** A case's expectation of one step as written. */
export type StepExpectation = Static<typeof StepExpectationSchema>;
