import { z } from 'zod';
import { ApiConfigSchema, ProjectSettingsSchema } from './schema.js';

/**
 * The published JSON Schemas of the two file formats, generated from the zod schemas so they can never
 * drift (a test compares them with the checked-in files). `io: 'input'` describes what a user may write:
 * keys with defaults are optional.
 */
export const CONFIG_SCHEMA_FILE = 'pagejson.config.schema.json';
export const PROJECT_SCHEMA_FILE = 'pagejson.project.schema.json';

export function configJsonSchema(): Record<string, unknown> {
  return {
    ...(z.toJSONSchema(ApiConfigSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>),
    $id: 'https://pagejson.dev/schemas/pagejson.config.schema.json',
    title: 'pagejson API configuration (configs/<apiId>.json)',
  };
}

export function projectJsonSchema(): Record<string, unknown> {
  return {
    ...(z.toJSONSchema(ProjectSettingsSchema, { io: 'input', target: 'draft-2020-12' }) as Record<string, unknown>),
    $id: 'https://pagejson.dev/schemas/pagejson.project.schema.json',
    title: 'pagejson project settings (pagejson.json)',
  };
}

export function schemaFileText(schema: Record<string, unknown>): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
