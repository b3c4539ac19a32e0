// Parameter fragments shared by the db.* node types, declared once.
import { Type } from '../../../engine/typebox.js';
import { TABLE_NAMES, type TableName } from '../../../adapters/db/tables.js';
import { DEFAULT_FIND_LIMIT, MAX_FIND_LIMIT } from '../../../adapters/db/table-ops.js';

/** The `table` parameter: one of the tables the database service knows (TABLE_NAMES). */
export const tableParam = () =>
  Type.Unsafe<TableName>({
    type: 'string',
    enum: [...TABLE_NAMES],
    description: `Table to use: one of ${TABLE_NAMES.join(', ')}.`,
    examples: ['leads'],
  });

const WHERE_HELP =
  'Column -> condition, all must hold: a value (equality), null (IS NULL), `{in: [...]}`, or `{eq|ne|gt|gte|lt|lte: value}` (`ne` also matches NULL). Values are bound as parameters.';

/**
 * The `where` parameter (column -> condition, all must hold). `required`: at least one column, for
 * writes that must never touch every row; otherwise empty (the default) means every row.
 */
export const whereParam = (opts: { required: boolean }) =>
  Type.Record(Type.String(), Type.Unknown(), {
    description: opts.required ? `${WHERE_HELP} Must name at least one column.` : `${WHERE_HELP} Empty: every row.`,
    ...(opts.required ? { minProperties: 1 } : { default: {} }),
    examples: [{ clinica_id: '{{ vars.clinica_id }}', remotejid: '{{ vars.phone }}' }, { transferido: false, created_at: { gte: '2025-01-01T00:00:00Z' } }],
  });

/** The `order_by` parameter: `{column, direction}` entries, first first; ties broken by id ascending. */
export const orderByParam = () =>
  Type.Array(
    Type.Object(
      {
        column: Type.String({ description: 'Column to order by.', examples: ['created_at'] }),
        direction: Type.Union([Type.Literal('asc'), Type.Literal('desc')], { description: 'Ascending or descending.', default: 'asc', examples: ['desc'] }),
      },
      { additionalProperties: false },
    ),
    { description: 'Sort order, first entry first; ties are broken by id ascending. Empty: by id ascending.', default: [], examples: [[{ column: 'created_at', direction: 'desc' }]] },
  );

/** The `limit` parameter: most rows returned, 1 to MAX_FIND_LIMIT, default DEFAULT_FIND_LIMIT. */
export const limitParam = () =>
  Type.Integer({ minimum: 1, maximum: MAX_FIND_LIMIT, default: DEFAULT_FIND_LIMIT, description: `Most rows returned (1 to ${MAX_FIND_LIMIT}).`, examples: [20] });

/** The `values` parameter (column -> value, at least one), `description` first in its help text. */
export const valuesParam = (description: string) =>
  Type.Record(Type.String(), Type.Unknown(), {
    description: `${description} Booleans, JSON values and timestamps (ISO text or ms since the epoch) are converted per column; \`id\` cannot be written.`,
    minProperties: 1,
    examples: [{ remotejid: '{{ vars.phone }}', clinica_id: '{{ trigger.body.clinica_id }}', nome: '{{ trigger.body.nome }}', transferido: false }],
  });
