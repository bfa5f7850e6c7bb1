// Writes docs/openapi.json from the gateway's route table (`npm run openapi`).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApi, routes } from '@cluster/gateway';

const file = path.resolve(import.meta.dirname, '..', 'docs', 'openapi.json');
writeFileSync(file, `${JSON.stringify(buildOpenApi(routes), null, 2)}\n`);
process.stdout.write(`wrote ${file}\n`);
