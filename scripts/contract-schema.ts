// Writes schemas/bridge-contract.schema.json from the contract's zod schemas (npm run schema).
// A test fails when the committed file and the schemas drift apart.
import { writeFile } from 'node:fs/promises';
import { contractJsonSchema } from '../src/bridge/json-schema.js';

const file = new URL('../schemas/bridge-contract.schema.json', import.meta.url);
await writeFile(file, `${JSON.stringify(contractJsonSchema(), null, 2)}\n`);
