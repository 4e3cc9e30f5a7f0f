/**
 * Writes the OpenAPI document of /v1 to dist/openapi.json (servers: `/v1`, relative to wherever the gateway runs),
 * for the linters (Redocly, Spectral) and the tests' contract check: the same document GET /v1/openapi.json answers.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '../dist/http/openapi.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
writeFileSync(path.join(root, 'dist/openapi.json'), `${JSON.stringify(openApiDocument('/v1'), null, 2)}\n`);
