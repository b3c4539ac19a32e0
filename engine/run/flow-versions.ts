// Pinned flow versions: an execution records the version of its flow it started on
// (ExecutionRecord.flow_version) and every drive of it runs that version, whatever this process
// loaded from disk since. The versions this process serves are known here; any other one is loaded
// from its source in the store (ExecutionStore.getFlowVersion) and kept.
import { loadFlowSource } from '../load/loader.js';
import { formatProblem } from '../load/yaml-source.js';
import type { NodeRegistry } from '../registry.js';
import type { ExecutionStore } from '../store/execution-store.js';
import type { ExecutionRecord, FlowSource, LoadedFlow } from '../types.js';

/** How long a version this process stored counts as stored before it is marked used again, ms (pruning keeps it a day). */
export const VERSION_RESTORE_MS = 3_600_000;
/** Most versions kept loaded besides the served ones. */
const MAX_KEPT = 200;

/** The source as stored (StoredFlowVersion.source): the flow's file name and its FlowSource. */
interface StoredSource extends FlowSource {
  file: string;
}

/** The flow to drive a record with, or why it cannot be driven (it then fails with that reason). */
export type PinnedFlow = { flow: LoadedFlow; error?: undefined } | { flow?: undefined; error: string };

/**
 * The flow versions an engine knows: those it served (`remember`) and those loaded from the store
 * for executions started elsewhere or before an edit.
 *
 * @example
 * const versions = new FlowVersions(store, registry);
 * versions.remember(flows.values());
 * await versions.store(flow); // before inserting an execution with flow_version = flow.sourceHash
 * const pinned = await versions.flowFor(record, flows.get(record.flow)); // pinned.flow or pinned.error
 */
export class FlowVersions {
  private readonly known = new Map<string, LoadedFlow>();
  /** When this process last stored each version, ms since epoch. */
  private readonly storedAt = new Map<string, number>();

  constructor(
    private readonly executions: ExecutionStore,
    private readonly registry: NodeRegistry,
  ) {}

  /** Keeps `flows` (served now) as known versions; the oldest beyond MAX_KEPT are forgotten (loaded again when needed). */
  remember(flows: Iterable<LoadedFlow>): void {
    for (const flow of flows) {
      const key = keyOf(flow.name, flow.sourceHash);
      this.known.delete(key);
      this.known.set(key, flow);
    }
    for (const key of this.known.keys()) {
      if (this.known.size <= MAX_KEPT) break;
      this.known.delete(key);
    }
  }

  /**
   * Stores the flow's version source in the store, at most once per
   * VERSION_RESTORE_MS per version in this process. Rejects when the store cannot be reached.
   */
  async store(flow: LoadedFlow): Promise<void> {
    const key = keyOf(flow.name, flow.sourceHash);
    const last = this.storedAt.get(key);
    if (last !== undefined && Date.now() - last < VERSION_RESTORE_MS) return;
    const source: StoredSource = { file: flow.file, ...flow.source };
    await this.executions.saveFlowVersion({ flow: flow.name, version: flow.sourceHash, source: JSON.stringify(source) });
    this.storedAt.set(key, Date.now());
  }

  /**
   * The flow `record` runs on: `current` when the record has no version (recorded before versions)
   * or is on the current one; else its own version, known here or loaded from the store. An error
   * (never another version) when the flow is not loaded, the version is not stored, or it no longer
   * loads. Rejects when the store cannot be reached.
   */
  async flowFor(record: ExecutionRecord, current: LoadedFlow | undefined): Promise<PinnedFlow> {
    const version = record.flow_version;
    if (version === undefined || current?.sourceHash === version)
      return current ? { flow: current } : { error: `flow "${record.flow}" is not loaded` };
    const known = this.known.get(keyOf(record.flow, version));
    if (known) return { flow: known };
    const text = await this.executions.getFlowVersion(record.flow, version);
    const label = `version ${version.slice(0, 12)} of flow "${record.flow}"`;
    if (text === undefined) return { error: `${label} is not stored; it cannot be resumed` };
    const loaded = loadStored(text, this.registry);
    if (!loaded.flow) return { error: `${label} can no longer be loaded: ${loaded.reason}` };
    if (loaded.flow.name !== record.flow || loaded.flow.sourceHash !== version)
      return { error: `${label}: the stored source is another flow or version` };
    this.remember([loaded.flow]);
    return { flow: loaded.flow };
  }
}

function keyOf(flow: string, version: string): string {
  return `${flow}\0${version}`;
}

/** A stored source loaded with `registry`, or the reason it does not load (its problems). */
function loadStored(text: string, registry: NodeRegistry): { flow?: LoadedFlow; reason: string } {
  let source: StoredSource;
  try {
    source = JSON.parse(text) as StoredSource;
  } catch (err) {
    return { reason: `its stored source is not JSON (${(err as Error).message})` };
  }
  const result = loadFlowSource(source.file, { text: source.text, files: source.files ?? {} }, registry);
  if (result.flow) return { flow: result.flow, reason: '' };
  return { reason: result.problems.map(formatProblem).join('; ') };
}
