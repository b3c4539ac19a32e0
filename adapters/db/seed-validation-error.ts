/** One problem of a seed file: where (path inside the data; file position when read from a file) and what. */
export interface SeedProblem {
  path: Array<string | number>;
  message: string;
  file?: string;
  /** 1-based, when the data came from a file. */
  line?: number;
  col?: number;
}

/** `clinicas[0].protocolos[1].preco` */
export function seedPath(path: Array<string | number>): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || '(file)';
}

/** `FILE:LINE:COL path: message` when positioned, else `path: message`. */
export function formatSeedProblem(p: SeedProblem): string {
  const where = p.file ? `${p.file}:${p.line ?? 1}:${p.col ?? 1} ` : '';
  return `${where}${seedPath(p.path)}: ${p.message}`;
}

/** The seed file cannot be read (missing, a directory, no permission); nothing was written. */
export class SeedFileUnreadableError extends Error {
  override name = 'SeedFileUnreadableError';
  readonly code = 'unreadable-seed';
  constructor(
    readonly file: string,
    cause: Error,
  ) {
    super(`cannot read seed file ${file}: ${cause.message}`, { cause });
  }
}

/** The seed data is invalid; nothing was written. `problems` lists every problem found. */
export class SeedValidationError extends Error {
  override name = 'SeedValidationError';
  readonly code = 'invalid-seed';
  constructor(readonly problems: SeedProblem[]) {
    super(
      `invalid seed data (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((p) => `  ${formatSeedProblem(p)}`).join('\n')}`,
    );
  }
}
