import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { ApiConfig } from '../../core/config/schema.js';
import { checkVariableValues } from '../../core/config/url-template.js';
import { wireText } from '../../core/shared/error-table.js';
import { errorReply } from '../../daemon/errors.js';
import { loadProjectConfigs } from '../config-files.js';
import type { CliContext } from '../context.js';

/**
 * `pagejson mcp`: the project's endpoints as MCP tools over stdio, for desktop agents (the command an MCP
 * client config names). Through the project's daemon when one runs and `PAGEJSON_API_KEY` holds a key (so
 * credits, cache and usage apply), else in-process with the same rules as `pagejson run`. Which one is said
 * on stderr; stdout carries the protocol only.
 */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;
/** How long the in-process retriever and the transport get to close after a stop. */
const CLOSE_GRACE_MS = 5_000;

export function register(program: Command, ctx: CliContext): void {
  program
    .command('mcp')
    .description('serve every endpoint as an MCP tool over stdio (through the running daemon with PAGEJSON_API_KEY, else in-process)')
    .addHelpText(
      'after',
      '\nExamples:\n  pagejson mcp                                  # in an MCP client config: {"command": "pagejson", "args": ["mcp"]}\n  PAGEJSON_API_KEY=pj_… pagejson mcp            # through the daemon: credits, cache and usage apply',
    )
    .action(async (_options: unknown, command: Command) => {
      const { project } = await loadProjectConfigs(command, ctx);
      // The configs folder is watched, as the daemon watches it: an edited or new config is announced to the agent.
      const { createConfigRegistry } = await import('../../core/registry/config-registry.js');
      let announce = () => undefined as void;
      const registry = await createConfigRegistry({ dir: project.configsDir, watch: true, onEvent: () => announce() });
      const configs = () =>
        registry
          .list()
          .filter((config) => config.status === 'active')
          .sort((a, b) => a.apiId.localeCompare(b.apiId));
      const [{ createEndpointMcpServer }, { endpointTool }, { StdioServerTransport }] = await Promise.all([
        import('../../daemon/mcp/server.js'),
        import('../../core/catalog/endpoint-tools.js'),
        import('@modelcontextprotocol/sdk/server/stdio.js'),
      ]);
      const daemonUrl = await runningDaemonUrl(project.dataDir);
      const apikey = ctx.env.PAGEJSON_API_KEY;
      const find = (name: string): ApiConfig | undefined => configs().find((config) => config.apiId === name);
      let call: (name: string, args: Record<string, unknown>) => Promise<{ data: unknown } | { error: string }>;
      let close = async () => undefined as void;
      if (daemonUrl && apikey) {
        ctx.stderr.write(
          `pagejson mcp: ${configs().length} endpoint(s) through the daemon at ${daemonUrl} (credits, cache and usage apply)\n`,
        );
        call = async (name, args) => {
          const response = await fetch(`${daemonUrl}/external/${encodeURIComponent(name)}`, {
            method: 'POST',
            headers: { apikey, 'content-type': 'application/json' },
            body: JSON.stringify(args),
          });
          const envelope = (await response.json()) as { data: unknown; errors: Array<{ message: string }> | null };
          return envelope.errors ? { error: envelope.errors.map((e) => e.message).join('; ') } : { data: envelope.data };
        };
      } else {
        const why = daemonUrl ? 'set PAGEJSON_API_KEY to go through the running daemon' : 'no daemon running';
        ctx.stderr.write(`pagejson mcp: ${configs().length} endpoint(s) in-process (${why}: no credits, no cache)\n`);
        const { createLocalRetriever } = await import('../local-retriever.js');
        const retriever = await createLocalRetriever(project, ctx.env);
        close = () => retriever.close();
        call = async (name, args) => {
          const config = find(name);
          // The same words the daemon answers, from the one error table (docs/wire.md).
          if (!config) return { error: wireText('NO_DATA') };
          const problems = checkVariableValues(config, args);
          if (problems.length > 0) return { error: problems.map((p) => p.message).join('; ') };
          try {
            return { data: (await retriever.retrieve(config, args as Record<string, string>)).data };
          } catch (error) {
            return {
              error: errorReply(error)
                .errors.map((e) => e.message)
                .join('; '),
            };
          }
        };
      }
      // Source URLs as in `pagejson openapi` and the daemon's /mcp: only with docs.sourceUrls.
      const { sourceUrls } = project.settings.docs;
      const server = createEndpointMcpServer({ list: async () => configs().map((config) => endpointTool(config, { sourceUrls })), call });
      const transport = new StdioServerTransport();
      await server.connect(transport);
      announce = () => void server.sendToolListChanged().catch(() => undefined);
      // Served until the client closes stdin, or a signal asks it to stop (a client or supervisor ending it):
      // extraction runs in worker threads, so the event loop is free to hear it while a call is in flight.
      let stop = () => undefined as void;
      const stopped = new Promise<void>((resolve) => (stop = resolve));
      transport.onclose = stop;
      process.stdin.on('end', stop);
      for (const signal of STOP_SIGNALS) process.once(signal, stop);
      try {
        await stopped;
      } finally {
        for (const signal of STOP_SIGNALS) process.removeListener(signal, stop);
        process.stdin.removeListener('end', stop);
        registry.close();
        // Bounded: a browser that will not close must not keep a stopped server alive.
        await Promise.race([Promise.all([close(), server.close()]), new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref())]);
      }
    });
}

/** The daemon's public URL, when a daemon of this project answers on its admin socket. */
export async function runningDaemonUrl(dataDir: string): Promise<string | undefined> {
  const { adminSocketPath } = await import('../state-client.js');
  const socketPath = adminSocketPath(dataDir);
  if (!existsSync(socketPath)) return undefined;
  const { Client } = await import('undici');
  const client = new Client('http://pagejson-admin', { socketPath, connectTimeout: 2_000 });
  try {
    const response = await client.request({ path: '/health', method: 'GET', headersTimeout: 2_000 });
    const health = (await response.body.json()) as { url?: string | null };
    return typeof health.url === 'string' ? health.url : undefined;
  } catch {
    return undefined;
  } finally {
    await client.close().catch(() => undefined);
  }
}
