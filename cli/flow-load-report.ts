// The problems of the latest load of the flows directory, for the console's Flows page
// (GET /admin/flows). `serve` records its start-up load (which has none: an invalid directory stops
// it) and `serve --watch` each reload, whether refused (the previous flows keep serving, the
// problems are here) or taken (no problems). Kept in this process only; each process reports its own.
import type { LoadProblem } from '../engine/types.js';

/** The problems of the latest load of the flows directory and when it ran (see above); a new load replaces them. */
export class FlowLoadReport {
  private latest: LoadProblem[] = [];
  private at = new Date();

  constructor(problems: LoadProblem[] = []) {
    this.record(problems);
  }

  /** Replaces what the previous load found with what this one found. */
  record(problems: LoadProblem[]): void {
    this.latest = [...problems].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.col - b.col);
    this.at = new Date();
  }

  /** The latest load's problems, by file, then line and column. */
  problems(): LoadProblem[] {
    return this.latest;
  }

  /** When the latest load ran. */
  loadedAt(): Date {
    return this.at;
  }
}
