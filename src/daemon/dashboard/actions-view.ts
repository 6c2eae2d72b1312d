import { describeActions } from '../../core/config/action-text.js';
import type { ApiConfig } from '../../core/config/schema.js';

/** The endpoint page's view of a config's browser actions: each step in words, numbered (docs/actions.md). */
export function actionsView(config: Pick<ApiConfig, 'actions'>): { actionSteps: Array<{ step: string; text: string }> } {
  return { actionSteps: describeActions(config.actions ?? []) };
}
