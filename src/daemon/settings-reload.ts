import { changedSettings } from '../core/config/settings-changes.js';
import { loadProject, type Project } from '../core/config/project.js';
import { isPagejsonError } from '../core/shared/errors.js';

/**
 * What a reload (SIGHUP) finds in pagejson.json. The daemon's settings are wired into its parts when it starts
 * (scrapers, the extraction threads, the cache, the state, the server), so a reload applies the configs only;
 * every setting of pagejson.json that differs from the running ones is named, each needing a restart, rather
 * than taken silently or half applied. A file that no longer reads is said, and the running settings stay.
 */
export type SettingsReload = { restartNeeded: string[] } | { unreadable: string };

export async function settingsOnReload(project: Project, env: Record<string, string | undefined>): Promise<SettingsReload> {
  try {
    const current = await loadProject({ cwd: project.root, projectDir: project.root, env });
    return { restartNeeded: changedSettings(project.settings, current.settings) };
  } catch (error) {
    return { unreadable: isPagejsonError(error) ? error.message : String(error) };
  }
}

/** The outcome in lines for the operator (the daemon's log and stderr). */
export function describeSettingsReload(outcome: SettingsReload): string[] {
  if ('unreadable' in outcome) return [`pagejson.json was not re-read (${outcome.unreadable}): the running settings stay`];
  return outcome.restartNeeded.map(
    (setting) => `pagejson.json: ${setting} changed; it takes effect when \`pagejson serve\` is restarted (a reload applies configs only)`,
  );
}
