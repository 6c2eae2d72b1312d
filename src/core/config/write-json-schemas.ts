import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CONFIG_SCHEMA_FILE, PROJECT_SCHEMA_FILE, configJsonSchema, projectJsonSchema, schemaFileText } from './json-schemas.js';

/** `npm run schemas`: regenerate the checked-in JSON Schemas in configs/ after a change to schema.ts. */
async function writeSchemas(): Promise<void> {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const repoRoot = join(here, here.includes('/dist/') ? '../../../..' : '../../..');
  await writeFile(join(repoRoot, 'configs', CONFIG_SCHEMA_FILE), schemaFileText(configJsonSchema()));
  await writeFile(join(repoRoot, 'configs', PROJECT_SCHEMA_FILE), schemaFileText(projectJsonSchema()));
  process.stdout.write(`wrote configs/${CONFIG_SCHEMA_FILE} and configs/${PROJECT_SCHEMA_FILE}\n`);
}

await writeSchemas();
