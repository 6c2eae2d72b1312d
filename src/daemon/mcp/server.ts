import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { EndpointTool } from '../../core/catalog/endpoint-tools.js';

/**
 * An MCP server whose tools are pagejson endpoints. What the tools are and how a call is answered come from
 * outside (the daemon: the key's scope and the retrieval service; `pagejson mcp`: the project, in-process or
 * through the daemon), so both transports share this one definition. A failed call is an MCP tool error
 * carrying the wire message (`No credits left ⚠. Please buy more credits`, `variable q does not match …`),
 * never a broken session.
 */
export interface EndpointToolSource {
  list(): Promise<EndpointTool[]>;
  call(name: string, args: Record<string, unknown>): Promise<{ data: unknown } | { error: string }>;
}

export const MCP_SERVER_INFO = { name: 'pagejson', version: '0.1.0' };

export function createEndpointMcpServer(source: EndpointToolSource): Server {
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await source.list() }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const outcome = await source
      .call(request.params.name, args)
      .catch((error: unknown) => ({ error: (error as Error)?.message ?? 'something went wrong' }));
    if ('error' in outcome) return { isError: true, content: [{ type: 'text' as const, text: outcome.error }] };
    return {
      content: [{ type: 'text' as const, text: JSON.stringify(outcome.data) }],
      structuredContent: outcome.data as Record<string, unknown>,
    };
  });
  return server;
}
