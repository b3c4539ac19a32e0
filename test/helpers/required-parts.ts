// What a test run must have. LEADFLOW_TEST_REQUIRE names, comma-separated, the servers and tools
// whose absence fails the run instead of skipping their tests: `.ci/run` sets it to
// `postgres,redis,chromium,ffmpeg`, so a CI run cannot pass with a part missing. Unset (a laptop),
// every part is optional: a test file that cannot use one skips its tests and prints why.
// A name that is not a part is an error, so a typo cannot quietly require nothing.

/** Every part a test run may require, with the name its messages use. */
export const TEST_PARTS = { postgres: 'PostgreSQL', redis: 'Redis', chromium: 'Chromium', ffmpeg: 'ffmpeg' } as const;

/** A server or tool some tests need. */
export type TestPart = keyof typeof TEST_PARTS;

const isPart = (name: string): name is TestPart => Object.hasOwn(TEST_PARTS, name);

/** The parts a LEADFLOW_TEST_REQUIRE value lists (empty when unset or blank); throws on any other name. */
export function requiredParts(value: string | undefined): Set<TestPart> {
  const names = (value ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const unknown = names.filter((name) => !isPart(name));
  if (unknown.length > 0)
    throw new Error(
      `LEADFLOW_TEST_REQUIRE names ${unknown.map((n) => `"${n}"`).join(', ')}, not a part the tests know (${Object.keys(TEST_PARTS).join(', ')})`,
    );
  return new Set(names.filter(isPart));
}

/**
 * Decides what a missing part means, where the tests that need it are declared (at import): with
 * `problem` null (the part answers) returns null; when LEADFLOW_TEST_REQUIRE lists `part`, throws an
 * error naming the part and the problem, which fails the test file; otherwise prints
 * `<Part> missing (not in LEADFLOW_TEST_REQUIRE), the tests that need it are skipped: <problem>` and
 * returns the problem; the caller skips those tests (and prints which).
 * Reads LEADFLOW_TEST_REQUIRE from `env` (default process.env) every time: an unknown name in it
 * throws whether the part is missing or not.
 */
export function partProblem(part: TestPart, problem: string | null, env: Record<string, string | undefined> = process.env): string | null {
  const required = requiredParts(env.LEADFLOW_TEST_REQUIRE);
  if (problem === null) return null;
  if (required.has(part))
    throw new Error(`${TEST_PARTS[part]} is required (LEADFLOW_TEST_REQUIRE=${env.LEADFLOW_TEST_REQUIRE}) but missing: ${problem}`);
  console.warn(`${TEST_PARTS[part]} missing (not in LEADFLOW_TEST_REQUIRE), the tests that need it are skipped: ${problem}`);
  return problem;
}
