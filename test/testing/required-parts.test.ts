// LEADFLOW_TEST_REQUIRE (test/helpers/required-parts.ts): a part it lists that is missing fails the
// test file, naming the part and the problem; a part it does not list is skipped with a warning; a
// name that is not a part is an error.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { partProblem, requiredParts } from '../helpers/required-parts.js';

const PROBLEM = 'Redis at redis://127.0.0.1:1 does not answer (connect ECONNREFUSED 127.0.0.1:1)';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('LEADFLOW_TEST_REQUIRE', () => {
  it('lists the parts named, in any case and spacing; unset or blank requires none', () => {
    expect([...requiredParts('postgres, Redis ,chromium,ffmpeg')]).toEqual(['postgres', 'redis', 'chromium', 'ffmpeg']);
    expect(requiredParts(undefined).size).toBe(0);
    expect(requiredParts(' , ').size).toBe(0);
  });

  it('refuses a name that is not a part, naming it and the known parts', () => {
    expect(() => requiredParts('postgres,redsi')).toThrow(
      'LEADFLOW_TEST_REQUIRE names "redsi", not a part the tests know (postgres, redis, chromium, ffmpeg)',
    );
  });

  it('a required part that is missing throws, naming the part and its problem', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(() => partProblem('redis', PROBLEM, { LEADFLOW_TEST_REQUIRE: 'postgres,redis' })).toThrow(
      `Redis is required (LEADFLOW_TEST_REQUIRE=postgres,redis) but missing: ${PROBLEM}`,
    );
    expect(warn).not.toHaveBeenCalled();
  });

  it('a part not listed that is missing is reported and returned, for the caller to skip', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(partProblem('redis', PROBLEM, { LEADFLOW_TEST_REQUIRE: 'postgres' })).toBe(PROBLEM);
    expect(partProblem('redis', PROBLEM, {})).toBe(PROBLEM);
    expect(warn.mock.calls).toEqual([
      [`Redis missing (not in LEADFLOW_TEST_REQUIRE), the tests that need it are skipped: ${PROBLEM}`],
      [`Redis missing (not in LEADFLOW_TEST_REQUIRE), the tests that need it are skipped: ${PROBLEM}`],
    ]);
  });

  it('a part that answers is fine, required or not; an unknown name throws even then', () => {
    expect(partProblem('ffmpeg', null, { LEADFLOW_TEST_REQUIRE: 'ffmpeg' })).toBeNull();
    expect(partProblem('ffmpeg', null, {})).toBeNull();
    expect(() => partProblem('ffmpeg', null, { LEADFLOW_TEST_REQUIRE: 'ffmpg' })).toThrow('names "ffmpg"');
  });

  it("this run's own value names only known parts", () => {
    expect(() => requiredParts(process.env.LEADFLOW_TEST_REQUIRE)).not.toThrow();
  });
});
