// The TypeScript client's types, generated from the server's OpenAPI document.
//
//   node scripts/gen-api.mjs          write src/api/schema.ts
//   node scripts/gen-api.mjs --check  fail when src/api/schema.ts is out of date
//
// The document comes from `dataagent openapi` (the Python package in ../.venv, or the
// command named by DATAAGENT_BIN), so no server needs to run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const here = dirname(fileURLToPath(import.meta.url));
const web = resolve(here, '..');
const target = join(web, 'src', 'api', 'schema.ts');
const bin = process.env.DATAAGENT_BIN ?? resolve(web, '..', '.venv', 'bin', 'dataagent');

const scratch = mkdtempSync(join(tmpdir(), 'dataagent-openapi-'));
let document;
try {
  // A throwaway data directory: printing the document must not touch the user's data.
  const env = { ...process.env, DATAAGENT_DATA_DIR: join(scratch, 'data') };
  delete env.DATAAGENT_DATABASE_URL;
  const text = execFileSync(bin, ['openapi'], { env, encoding: 'utf-8', maxBuffer: 64 << 20 });
  document = JSON.parse(text);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const header =
  '// Generated from the server\'s OpenAPI document by `npm run gen:api`. Do not edit.\n' +
  '/* eslint-disable */\n';
const generated = header + astToString(await openapiTS(document, { alphabetize: true }));

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf-8');
  } catch {
    // missing: out of date
  }
  if (current !== generated) {
    console.error(
      'web/src/api/schema.ts is out of date with the server\'s OpenAPI document: ' +
        'run `make web-api` (or `cd web && npm run gen:api`) and commit the result.',
    );
    process.exit(1);
  }
  console.log('web/src/api/schema.ts matches the OpenAPI document.');
} else {
  writeFileSync(target, generated);
  console.log(`wrote ${target}`);
}
