// Reads the Prometheus text exposition (GET /metrics) for assertions: samples by name and labels,
// whatever order the labels are printed in.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (match[2] ?? '').matchAll(LABEL))
      labels[key!] = value!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** Value of the one sample `name` whose labels include `labels`; undefined when none; throws when several match. */
export function sampleValue(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}: ${JSON.stringify(found)}`);
  return found[0]?.value;
}

/** Every sample of `name` as `{labels..., value}` (for readable failures). */
export function samplesOf(samples: Sample[], name: string): Array<Record<string, string | number>> {
  return samples.filter((s) => s.name === name).map((s) => ({ ...s.labels, value: s.value }));
}

/** `# TYPE name type` of each family in the text. */
export function familyTypes(text: string): Record<string, string> {
  const types: Record<string, string> = {};
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) types[name!] = type!;
  return types;
}
