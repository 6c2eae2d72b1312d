import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { API_ID_PATTERN, writeConfigFile, type ApiConfig } from '../config/index.js';
import { parseConfigText, readConfigFileText } from '../registry/index.js';

/**
 * A repair the daemon proposed (heal: "propose") waits beside the reviewed file as
 * `configs/<apiId>.proposed.json`: a whole config, one revision up. The config loader never serves it;
 * `pagejson heal <apiId>` offers it (when it is still one revision above the file) and removes it once
 * applied. Nothing the daemon writes replaces the user's reviewed config in this mode.
 */
export const PROPOSAL_SUFFIX = '.proposed.json';

export function proposalFile(configsDir: string, apiId: string): string {
  if (!API_ID_PATTERN.test(apiId)) throw new Error(`"${apiId}" is not an apiId`);
  return join(configsDir, `${apiId}${PROPOSAL_SUFFIX}`);
}

export async function writeProposal(configsDir: string, config: ApiConfig): Promise<string> {
  const file = proposalFile(configsDir, config.apiId);
  await writeConfigFile(file, config);
  return file;
}

/** The stored proposal for this apiId, if it parses and is one revision above `currentRevision`. */
export async function readProposal(configsDir: string, apiId: string, currentRevision: number): Promise<ApiConfig | undefined> {
  // Read as configs are: a FIFO or a link out of the folder is no proposal.
  const read = await readConfigFileText(proposalFile(configsDir, apiId), configsDir);
  if (!('text' in read)) return undefined;
  const { text } = read;
  // Parsed as if it were the config's own file, so the apiId/file-name rule holds.
  const parsed = parseConfigText(text, join(configsDir, `${apiId}.json`));
  return parsed.ok && parsed.config.revision === currentRevision + 1 ? parsed.config : undefined;
}

export async function removeProposal(configsDir: string, apiId: string): Promise<void> {
  await unlink(proposalFile(configsDir, apiId)).catch(() => undefined);
}
