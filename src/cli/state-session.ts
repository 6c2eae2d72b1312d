import type { Project } from '../core/config/project.js';
import type { StateClient } from './state-client.js';

/**
 * Runs one command's work against the state (daemon socket or local store) and closes it afterwards. The
 * client module pulls in undici, lowdb and the config loader, so it is imported only when a state command
 * actually runs: every command module is registered at CLI start, and `--help` must stay fast.
 */
export async function withStateClient<T>(project: Project, use: (client: StateClient) => Promise<T>): Promise<T> {
  const { withStateClient: run } = await import('./state-client.js');
  return run(project, use);
}
