import { describeActions, type Action } from '../core/config/action-text.js';

/** `pagejson show`'s actions section (docs/actions.md): each step numbered (`2.1` inside step 2's `then`). */
export function actionLines(actions: readonly Action[] | undefined, title: (text: string) => string): string[] {
  if (!actions || actions.length === 0) return [];
  const lines = ['', title('actions'), ...describeActions(actions).map((entry) => `  ${entry.step.padEnd(5)} ${entry.text}`)];
  return lines;
}
