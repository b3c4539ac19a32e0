// JSON, the form of everything an execution holds: plain values that can be stored, resumed and
// printed.

/** Any JSON value: what executions hold, store and print. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };
