// Reads the uazapi webhook fixtures of test/fixtures/uazapi (a fresh parsed copy per call).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(import.meta.dirname, '../../fixtures/uazapi');

export function uazapiFixture(name: string): any {
  return JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8'));
}
