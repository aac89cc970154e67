// The TypeScript client's types, generated from the server's OpenAPI document.
//
//   node scripts/gen-api.mjs          write src/api/schema.ts
//   node scripts/gen-api.mjs --check  fail when src/api/schema.ts is out of date
//
// The document comes from `dataagent openapi` (the Python package in ../.venv, or the
// command named by DATAAGENT_BIN), so no server needs to run.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';

const here = dirname(fileURLToPath(import.meta.url));
const web = resolve(here, '..');
const target = join(web, 'src', 'api', 'schema.ts');
const bin = process.env.DATAAGENT_BIN ?? resolve(web, '..', '.venv', 'bin', 'dataagent');

// `dataagent openapi` builds the document from the routes alone: it reads no settings and
// writes nothing (no data directory, no database), so it runs as it is.
const text = execFileSync(bin, ['openapi'], { encoding: 'utf-8', maxBuffer: 64 << 20 });
const document = JSON.parse(text);

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
