import type { Field } from '../../src/core/config/schema.js';
import { compileStructure, selectSection } from '../../src/core/extract/engine/index.js';
import { createHeuristicModel } from '../../src/core/models/heuristic/index.js';

/** A page written for a test: the body (and head) given, the rest as every page has it. */
export const htmlPage = (body: string, head = '<title>Fixture</title>') =>
  `<!DOCTYPE html><html lang="en"><head>${head}</head><body>${body}</body></html>`;

/** What `generate` proposes for the page with the built-in model, and what that structure extracts from it. */
export async function generateWithHeuristic(html: string, pageUrl: string): Promise<{ structure: Field[]; data: Record<string, unknown> }> {
  const { structure } = await createHeuristicModel().generate({
    sectionHtml: selectSection(html, 'body').sectionHtml,
    pageHtml: html,
    pageUrl,
    selector: 'body',
    rule: null,
  });
  const { data } = compileStructure({ selector: 'body', structure }).extract(html, pageUrl);
  return { structure, data };
}
