/** One problem of a business-hours value: the key it is about (`timezone`, a day key, or '' for the whole value) and what. */
export interface BusinessHoursProblem {
  key: string;
  message: string;
}

/**
 * A business-hours value (`clinicas_com_atendentes.horario_atendimento`) that cannot be read.
 * `problems` lists every problem found; the message joins them, each prefixed with its key.
 */
export class BusinessHoursError extends Error {
  override name = 'BusinessHoursError';
  readonly code = 'invalid-business-hours';
  constructor(
    readonly problems: BusinessHoursProblem[],
    options?: { cause?: unknown },
  ) {
    super(`invalid business hours: ${problems.map((p) => (p.key ? `${p.key}: ${p.message}` : p.message)).join('; ')}`, options);
  }
}
