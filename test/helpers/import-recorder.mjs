// Preload (`node --import <this file>`) that records every module the process resolves through the
// ES module loader — every `import` and `import()` of LeadFlow's code, so every package it enters —
// as one URL per line appended to the file named by LEADFLOW_IMPORT_LOG. Used by
// test/cli/lazy-imports.test.ts to check what a command loads.
import { register } from 'node:module';

register(new URL('./import-recorder-hooks.mjs', import.meta.url), { data: { log: process.env.LEADFLOW_IMPORT_LOG } });
