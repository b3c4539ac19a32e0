import type { Command } from 'commander';
import { flowToMermaid } from '../../engine/graph/mermaid.js';
import { flowsDirectory, loadValidFlows, pickFlow } from '../host.js';

export function registerGraph(program: Command): void {
  program
    .command('graph')
    .description('print a flow as a Mermaid flowchart')
    .argument('<flow>', 'flow name (or path of its YAML file)')
    .option('--flows <dir>', 'flows directory (default: $LEADFLOW_FLOWS_DIR or ./flows)')
    .action((flowArg: string, opts: { flows?: string }) => {
      const flow = pickFlow(loadValidFlows(flowsDirectory(opts.flows)), flowArg);
      process.stdout.write(`${flowToMermaid(flow)}\n`);
    });
}
