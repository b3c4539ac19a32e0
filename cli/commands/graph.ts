import type { Command } from 'commander';

/** `leadflow graph FLOW [--flows DIR]`: prints the flow as a Mermaid flowchart on stdout. */
export function registerGraph(program: Command): void {
  program
    .command('graph')
    .description('print a flow as a Mermaid flowchart')
    .argument('<flow>', 'flow name (or path of its YAML file)')
    .option('--flows <dir>', 'flows directory (default: $LEADFLOW_FLOWS_DIR or ./flows)')
    .action(async (flowArg: string, opts: { flows?: string }) => {
      const [{ flowToMermaid }, { flowsDirectory, loadValidFlows, pickFlow }] = await Promise.all([
        import('../../engine/graph/mermaid.js'),
        import('../host.js'),
      ]);
      const flow = pickFlow(loadValidFlows(flowsDirectory(opts.flows)), flowArg);
      process.stdout.write(`${flowToMermaid(flow)}\n`);
    });
}
