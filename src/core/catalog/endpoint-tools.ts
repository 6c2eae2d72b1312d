import { MAX_VARIABLE_LENGTH, callerVariableNames, ownVariable, type ApiConfig } from '../config/index.js';
import { dataJsonSchema } from '../extract/index.js';

/**
 * Every saved endpoint as a typed tool (MCP, the endpoint listing): a name (its apiId), a description, the
 * JSON Schema of its inputs (its variables, patterns included) and of its output (its data). Transport-free:
 * the daemon's /mcp and `pagejson mcp` describe endpoints the same way.
 */
export interface EndpointTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required: string[]; additionalProperties: false };
  outputSchema: Record<string, unknown>;
}

export interface DescribeOptions {
  /**
   * Name the endpoint's source URL (`docs.sourceUrls`, off by default, as in the OpenAPI document): it may name
   * intranet hosts or carry a secret in its query string, and key holders read these descriptions
   * (docs/security.md, "The API description"). The dashboard, whose users see every config, names it.
   */
  sourceUrls: boolean;
}

export function describeEndpoint(config: ApiConfig, options: DescribeOptions): string {
  if (config.description) return config.description;
  const source = options.sourceUrls ? config.url.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, '{$1}') : 'a web page';
  const rule = config.rule ? ` ${config.rule}.` : '';
  return `Data extracted from ${source} as JSON (${config.structure.map((field) => field.name).join(', ')}).${rule}`;
}

export function endpointTool(config: ApiConfig, options: DescribeOptions): EndpointTool {
  const names = callerVariableNames(config);
  const properties: Record<string, unknown> = {};
  for (const name of names) {
    const variable = ownVariable(config, name);
    properties[name] = {
      type: 'string',
      maxLength: MAX_VARIABLE_LENGTH,
      ...(variable?.pattern ? { pattern: variable.pattern } : {}),
      ...(variable?.description ? { description: variable.description } : {}),
      ...(variable?.example !== undefined ? { examples: [variable.example] } : {}),
    };
  }
  const { $schema: _dialect, ...output } = dataJsonSchema(config.structure) as Record<string, unknown>;
  return {
    name: config.apiId,
    description: describeEndpoint(config, options),
    inputSchema: { type: 'object', properties, required: names, additionalProperties: false },
    outputSchema: output,
  };
}
