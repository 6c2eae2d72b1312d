import type { ApiConfig } from './schema.js';
import { callerVariableNames, exampleValues } from './url-template.js';

/**
 * A curl line a user can paste (`pagejson show`, the dashboard). A module of its own, light enough for the
 * CLI's start (endpoint-tools pulls in the HTML parser): GET for static configs, POST with the given
 * values (default: the examples) for dynamic ones.
 */
export function exampleRequest(config: ApiConfig, baseUrl: string, values: Record<string, string> = exampleValues(config)): string {
  const url = `${baseUrl}/external/${config.apiId}`;
  if (callerVariableNames(config).length === 0) return `curl -H 'apikey: <API_KEY>' ${url}`;
  const body = JSON.stringify(values).replace(/'/g, `'\\''`);
  return `curl -X POST -H 'apikey: <API_KEY>' -H 'Content-Type: application/json' -d '${body}' ${url}`;
}
