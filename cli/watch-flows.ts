// `serve --watch`: reload the flows when a flow file of the flows directory changes, or a file a
// served flow reads (`files:`, e.g. prompts/agent-system.md). A reload that has any problem is
// refused: the problems are logged and the flows already loaded keep serving. Executions already
// started finish on their own flow version. Each reload's problems (none when it was taken) go to
// the FlowLoadReport given, which the console lists.
import { watch } from 'node:fs';
import { normalize, relative } from 'node:path';
import type { Engine } from '../engine/engine.js';
import type { Logger } from '../engine/logger.js';
import { formatProblem } from '../engine/load/yaml-source.js';
import type { FlowLoadReport } from './flow-load-report.js';
import { loadFlows } from './host.js';

/** Changes closer together than this are reloaded once, ms. */
const DEBOUNCE_MS = 150;

/** The files the served flows read, as paths relative to the flows directory (flows sit directly in it). */
function filesRead(engine: Engine): Set<string> {
  return new Set(engine.listFlows().flatMap((flow) => Object.keys(flow.source.files).map((path) => normalize(path))));
}

/**
 * Watches `dir` (see above) and reloads the engine's flows after each change (debounced
 * DEBOUNCE_MS); each reload's problems go to `report`. Returns the function that stops watching.
 */
export function watchFlows(dir: string, engine: Engine, logger: Logger, report?: FlowLoadReport): () => void {
  let timer: NodeJS.Timeout | undefined;
  const reload = () => {
    try {
      const { flows, problems } = loadFlows(dir);
      report?.record(problems);
      if (problems.length > 0) {
        for (const p of problems) logger.error({ file: p.file, line: p.line, col: p.col, code: p.code }, formatProblem(p));
        logger.error({ problems: problems.length }, 'flows not reloaded: the edit is invalid; the previous flows keep serving');
        return;
      }
      engine.setFlows(flows);
      logger.info({ flows: [...flows.keys()] }, 'flows reloaded');
    } catch (err) {
      const message = `flows not reloaded: ${(err as Error).message}`;
      report?.record([{ file: relative(process.cwd(), dir) || dir, line: 1, col: 1, path: [], code: 'unreadable-file', message }]);
      logger.error({ err: (err as Error).message }, 'flows not reloaded');
    }
  };
  const watcher = watch(dir, { persistent: false, recursive: true }, (_event, name) => {
    if (name && !/^[^/\\]+\.ya?ml$/.test(String(name)) && !filesRead(engine).has(String(name))) return;
    clearTimeout(timer);
    timer = setTimeout(reload, DEBOUNCE_MS);
  });
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}
