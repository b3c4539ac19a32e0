// Shapes shared by the loader, the executor, the triggers and the node definitions, one file per
// concern under engine/types/: JSON (json.ts), flows as written and as loaded (flow.ts), execution
// records (execution.ts), node types and their run context (node.ts). Importers take them from here.

/** The execution records: what is stored about an execution, its steps and its calls (engine/types/execution.ts). */
export type {
  ExecutionRecord,
  ExecutionStatus,
  FlowCancel,
  FlowStart,
  OutboundCall,
  StepError,
  StepRecord,
  StepStatus,
} from './types/execution.js';
/** A flow as written, as loaded, and the problems its loading finds (engine/types/flow.ts). */
export {
  type AuthMode,
  type FlowConcurrency,
  type FlowDefinition,
  type FlowMetric,
  type FlowSource,
  type LoadedFlow,
  type LoadedFlowMetric,
  type LoadedStep,
  type LoadProblem,
  type LoadProblemCode,
  type OnError,
  type RetryPolicy,
  type ScheduleTrigger,
  type StepDefinition,
  type WebhookRoute,
  type WebhookTrigger,
  webhookRoutes,
} from './types/flow.js';
/** JSON values, the form of everything an execution holds (engine/types/json.ts). */
export type { JsonObject, JsonValue } from './types/json.js';
/** Node types and the context their `run` is handed (engine/types/node.ts). */
export {
  type ChildSlot,
  defineNode,
  type NodeContext,
  type NodeDefinition,
  type NodeExample,
  type ParamsCheck,
  type ScopeBindings,
  type StartedFlow,
  type StartFlowOptions,
} from './types/node.js';
