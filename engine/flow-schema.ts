// Generates the JSON Schema of a flow file from the registered node definitions.
// The loader validates with it, and `flows/flow.schema.json` (written by `leadflow schema --write`)
// gives editors completion and diagnostics. Each step type gets its own `$defs/step.<type>` entry,
// selected with if/then on `type`, so errors point at the exact parameter.
import { RESPOND_DEFAULTS, RETRY_DEFAULTS, SCHEDULE_DEFAULTS } from './load/defaults.js';
import type { NodeRegistry } from './registry.js';
import { AUTH_MODE_NAME } from './triggers/auth-modes.js';
import type { NodeDefinition } from './types.js';

type Schema = Record<string, unknown>;

/** Step ids: lower-case letters, digits and `_`, not starting with a digit (`steps.<id>` in expressions). */
export const STEP_ID_PATTERN = '^[a-z_][a-z0-9_]*$';
/** Environment variable names a flow may declare: upper-case letters, digits and `_`. */
export const ENV_NAME_PATTERN = '^[A-Z][A-Z0-9_]*$';
const EXPRESSION_PATTERN = '^\\s*\\{\\{[\\s\\S]*\\}\\}\\s*$';
const TEMPLATE_PATTERN = '\\{\\{[\\s\\S]*\\}\\}';

/** Strips TypeBox symbols and undefined members: the schema as plain JSON. */
function plain<T>(schema: T): T {
  return JSON.parse(JSON.stringify(schema)) as T;
}

const ANNOTATIONS = ['description', 'default', 'examples', 'title'];

function acceptsAnyString(schema: Schema): boolean {
  return (
    schema.type === 'string' &&
    schema.enum === undefined &&
    schema.const === undefined &&
    schema.pattern === undefined &&
    schema.format === undefined &&
    schema.minLength === undefined
  );
}

/**
 * Lets every parameter value be an expression (`"{{ … }}"`) as well as its declared type.
 * The declared type is still enforced after evaluation, at run time.
 */
export function expressionTolerant(schema: Schema): Schema {
  if (schema.type === 'object') {
    const out: Schema = { ...schema };
    // A field with a default may be left out of the YAML: the default is filled in at run time.
    if (Array.isArray(schema.required) && schema.properties) {
      const props = schema.properties as Record<string, Schema>;
      out.required = (schema.required as string[]).filter((k) => props[k]?.default === undefined);
      if ((out.required as string[]).length === 0) delete out.required;
    }
    if (schema.properties && typeof schema.properties === 'object') {
      out.properties = Object.fromEntries(Object.entries(schema.properties as Record<string, Schema>).map(([k, v]) => [k, wrap(v)]));
    }
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
      out.additionalProperties = wrap(schema.additionalProperties as Schema);
    }
    return out;
  }
  if (schema.type === 'array' && schema.items && typeof schema.items === 'object') {
    return { ...schema, items: wrap(schema.items as Schema) };
  }
  return schema;
}

function wrap(schema: Schema): Schema {
  if (acceptsAnyString(schema) || Object.keys(schema).length === 0) return schema;
  const annotations = Object.fromEntries(ANNOTATIONS.filter((k) => k in schema).map((k) => [k, schema[k]]));
  const alternatives: Schema[] = [expressionTolerant(schema), { $ref: '#/$defs/expression' }];
  // A constrained string may also be a template (`{{ base }}/path`); its text is checked once evaluated.
  if (schema.type === 'string') alternatives.push({ $ref: '#/$defs/expression_template' });
  return { ...annotations, anyOf: alternatives };
}

function stepSchema(def: NodeDefinition): Schema {
  const params = plain(def.params) as Schema;
  const required = ['id', 'type'];
  const tolerant = expressionTolerant(params);
  if (Array.isArray(tolerant.required) && tolerant.required.length > 0) required.push('params');
  const properties: Record<string, Schema> = {
    id: { type: 'string', pattern: STEP_ID_PATTERN, description: 'Unique step id; its output is `steps.<id>`.' },
    type: { const: def.type, description: def.description },
    name: { type: 'string', description: 'Human-readable label shown in traces and graphs.' },
    params: { ...tolerant, description: `Parameters of ${def.type}.` },
    retry: { $ref: '#/$defs/retry' },
    on_error: { $ref: '#/$defs/on_error' },
  };
  for (const [slot, decl] of Object.entries(def.children ?? {})) {
    properties[slot] =
      decl.shape === 'list'
        ? { $ref: '#/$defs/steps', description: decl.description }
        : { type: 'object', description: decl.description, additionalProperties: { $ref: '#/$defs/steps' } };
    if (decl.required) required.push(slot);
  }
  return { type: 'object', additionalProperties: false, required, properties };
}

const retrySchema: Schema = {
  type: 'object',
  additionalProperties: false,
  description: 'Retry the step when it fails.',
  properties: {
    attempts: {
      type: 'integer',
      minimum: 1,
      maximum: 100,
      default: RETRY_DEFAULTS.attempts,
      description: 'Total attempts, the first included.',
    },
    delay_ms: { type: 'integer', minimum: 0, default: RETRY_DEFAULTS.delay_ms, description: 'Delay before the second attempt, ms.' },
    backoff: {
      type: 'number',
      minimum: 1,
      default: RETRY_DEFAULTS.backoff,
      description: 'Factor applied to the delay after each attempt.',
    },
    max_delay_ms: { type: 'integer', minimum: 0, default: RETRY_DEFAULTS.max_delay_ms, description: 'Cap of any single delay, ms.' },
    jitter: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      default: RETRY_DEFAULTS.jitter,
      description: 'Random fraction of each delay added or removed.',
    },
    when: {
      $ref: '#/$defs/expression',
      description: 'Retry only when this expression over `error` (name, message, status, body, code) is true.',
    },
  },
};

const onErrorSchema: Schema = {
  description:
    'What a failure of this step (after retries) does: fail the execution (default), continue, or go to a step of the same list.',
  anyOf: [
    { enum: ['fail', 'continue'] },
    {
      type: 'object',
      additionalProperties: false,
      required: ['goto'],
      properties: { goto: { type: 'string', pattern: STEP_ID_PATTERN } },
    },
  ],
};

const triggerSchema: Schema = {
  type: 'object',
  additionalProperties: false,
  description: 'How the flow starts: a webhook or a schedule (neither: only called by other flows), and the JSON Schema of its input.',
  properties: {
    webhook: {
      type: 'object',
      additionalProperties: false,
      required: ['path'],
      description: 'Start the flow on an HTTP request to `path`, served by `leadflow serve`.',
      properties: {
        method: { enum: ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'], default: 'POST', description: 'HTTP method of the route.' },
        path: { type: 'string', pattern: '^/[A-Za-z0-9/_-]*$', description: 'Route served by `leadflow serve`.' },
        auth: {
          type: 'string',
          pattern: AUTH_MODE_NAME.source,
          default: 'secret',
          description:
            'How a request is authenticated: the name of a mode the host registers (an unregistered one is refused when the flows load). The engine ships `secret` (X-Webhook-Secret header or ?secret= must equal LEADFLOW_WEBHOOK_SECRET when it is set) and `none` (public); `leadflow` adds `form-signature` and `instance-token` (README, "Webhook authentication").',
        },
        routes: {
          type: 'array',
          description:
            'More routes that start this flow, each with its own auth mode: e.g. one per sender of the same kind of event. Recorded and answered like the main route; when an auth mode splits one request into several events, each starts its own execution and the answer is 200 `{status: "accepted", executions: n}`.',
          items: {
            type: 'object',
            additionalProperties: false,
            required: ['path'],
            properties: {
              method: { enum: ['POST', 'PUT', 'PATCH', 'GET', 'DELETE'], default: 'POST', description: 'HTTP method of the route.' },
              path: { type: 'string', pattern: '^/[A-Za-z0-9/_-]*$', description: 'Route served by `leadflow serve`.' },
              auth: {
                type: 'string',
                pattern: AUTH_MODE_NAME.source,
                description: "How this route's requests are authenticated (a registered mode's name); default: the webhook's `auth`.",
              },
            },
          },
        },
        respond: {
          type: 'object',
          additionalProperties: false,
          description: 'When the caller gets its answer: at once, or when a `respond` step runs.',
          properties: {
            mode: { enum: ['immediately', 'step'], default: RESPOND_DEFAULTS.mode },
            status: {
              type: 'integer',
              minimum: 100,
              maximum: 599,
              default: RESPOND_DEFAULTS.status,
              description: 'Status for `immediately`.',
            },
            body: { description: 'Body for `immediately`; may use `execution.id` and `trigger`.' },
            timeout_ms: {
              type: 'integer',
              minimum: 1,
              default: RESPOND_DEFAULTS.timeout_ms,
              description: 'For `step`: longest wait for the respond step, ms.',
            },
            late: {
              type: 'object',
              additionalProperties: false,
              required: ['status', 'body'],
              description:
                'For `step`: the answer when the respond step has not run within `timeout_ms` (the execution is recorded and goes on). Without it: 202 `{execution_id, status: "running"}`.',
              properties: {
                status: { type: 'integer', minimum: 100, maximum: 599, description: 'Status of the late answer.' },
                body: { description: 'JSON body of the late answer, sent as written (no expressions).' },
              },
            },
          },
        },
      },
    },
    schedule: {
      type: 'object',
      additionalProperties: false,
      required: ['cron'],
      description:
        'Start the flow on a schedule: each tick runs once across every `serve` and `worker` process; a tick missed while every process was down runs once at the next start. The execution sees `trigger.schedule` (tick, cron, timezone, catch_up). A flow has a webhook or a schedule, not both.',
      properties: {
        cron: {
          type: 'string',
          minLength: 1,
          description: 'Cron pattern: five fields (minute hour day-of-month month day-of-week), or six with seconds first.',
          examples: ['0 9 * * 1-5', '*/30 * * * * *'],
        },
        timezone: {
          type: 'string',
          minLength: 1,
          default: SCHEDULE_DEFAULTS.timezone,
          description: 'IANA time zone the pattern is read in.',
        },
      },
    },
    input: { type: 'object', description: 'JSON Schema of the webhook body or call-flow input.' },
  },
};

/** Prometheus metric names: letters, digits, `_` and `:`, not starting with a digit. */
export const METRIC_NAME_PATTERN = '^[a-zA-Z_:][a-zA-Z0-9_:]*$';

const metricsSchema: Schema = {
  type: 'array',
  description:
    "Figures this flow reports to the host's metrics (GET /metrics), observed when one of its executions ends normally (success, or stopped by a stop step).",
  items: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'type', 'help', 'value'],
    properties: {
      name: {
        type: 'string',
        pattern: METRIC_NAME_PATTERN,
        description:
          "Exposed metric name (Prometheus), e.g. orders_checkout_seconds; a counter's ends in _total, e.g. orders_cancelled_total.",
      },
      type: {
        enum: ['histogram', 'counter'],
        description: 'Kind of metric: histogram (each value observed into buckets) or counter (each value added to a total).',
      },
      help: { type: 'string', minLength: 1, description: 'HELP text of the metric.' },
      value: {
        $ref: '#/$defs/expression',
        description:
          'Expression over output, trigger, vars, execution giving a finite number of zero or more: a histogram observes it, a counter adds it (1 counts executions). Any other value is not observed.',
      },
      buckets: {
        type: 'array',
        minItems: 1,
        items: { type: 'number' },
        description:
          'Histogram only, and required there: upper bounds of the buckets, strictly ascending, in the unit of value. A counter has none.',
      },
    },
    if: { properties: { type: { const: 'histogram' } }, required: ['type'] },
    // `properties` repeats buckets so strict validators (ajv strictRequired) see what is required.
    then: { properties: { buckets: { type: 'array' } }, required: ['buckets'] },
  },
};

const concurrencySchema: Schema = {
  type: 'object',
  additionalProperties: false,
  required: ['key'],
  description:
    'At most one running or waiting execution of this flow per key, whatever starts it (webhook, call-flow, flow.start): a new start cancels the earlier one (status `cancelled`).',
  properties: {
    key: {
      $ref: '#/$defs/expression',
      description:
        'Expression over trigger, vars, env, execution, now giving the key; null or empty text: no key. A flow.start `key` wins.',
    },
    mode: { enum: ['replace'], default: 'replace', description: '`replace`: the new start cancels the execution it finds.' },
  },
};

/** The whole flow-file schema (JSON Schema draft-07) for the node types in `registry`; a new object per call. */
export function buildFlowSchema(registry: NodeRegistry): Schema {
  const defs: Record<string, Schema> = {
    expression: {
      type: 'string',
      pattern: EXPRESSION_PATTERN,
      description: 'A JSONata expression between {{ and }}, evaluated against trigger, steps, vars, env, files, now.',
    },
    expression_template: {
      type: 'string',
      pattern: TEMPLATE_PATTERN,
      description: 'Text with {{ expressions }} inside; the resulting text must match the parameter once evaluated.',
    },
    steps: { type: 'array', items: { $ref: '#/$defs/step' } },
    retry: retrySchema,
    on_error: onErrorSchema,
    step: {
      type: 'object',
      required: ['id', 'type'],
      properties: {
        id: { type: 'string' },
        type: { enum: registry.types(), description: 'Node type; see `leadflow nodes`.' },
      },
      allOf: registry.all().map((def) => ({
        if: { properties: { type: { const: def.type } }, required: ['type'] },
        then: { $ref: `#/$defs/step.${def.type}` },
      })),
    },
  };
  for (const def of registry.all()) defs[`step.${def.type}`] = stepSchema(def);
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://leadflow.local/flow.schema.json',
    title: 'LeadFlow flow',
    type: 'object',
    additionalProperties: false,
    required: ['name', 'steps'],
    properties: {
      name: { type: 'string', pattern: '^[a-z][a-z0-9-]*$', description: 'Flow name, used by `leadflow run` and `call-flow`.' },
      description: { type: 'string' },
      trigger: triggerSchema,
      env: {
        type: 'object',
        description:
          "Environment variables this flow may read (`env.NAME`), each with its default: the value is converted to the default's type, and an unset or empty one gives the default. A `null` default takes the text as set, an empty one included (null when unset).",
        propertyNames: { pattern: ENV_NAME_PATTERN },
        additionalProperties: { type: ['string', 'number', 'boolean', 'null'] },
      },
      vars: { type: 'object', description: 'Initial flow variables (`vars.NAME`); expressions allowed.' },
      files: {
        type: 'object',
        description:
          'Files this flow reads (e.g. a prompt), each a path relative to the flow file; read with the flow, part of its version, seen as `files.NAME`.',
        propertyNames: { pattern: '^[a-z_][a-z0-9_]*$' },
        additionalProperties: { type: 'string', minLength: 1 },
      },
      output: { description: 'Output of the flow for `call-flow`; default: output of the last top-level step.' },
      metrics: metricsSchema,
      concurrency: concurrencySchema,
      steps: { $ref: '#/$defs/steps' },
    },
    $defs: defs,
  };
}

/** The text of `flows/flow.schema.json`: the schema as stable, pretty JSON with a trailing newline. */
export function renderFlowSchema(registry: NodeRegistry): string {
  return `${JSON.stringify(buildFlowSchema(registry), null, 2)}\n`;
}
