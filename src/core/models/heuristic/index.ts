import type { FillInput, FillOutput, GenerateInput, GenerateOutput, Model } from '../types.js';
import { allElements, isElement, parseHtml, selectIn } from '../../extract/index.js';
import { detectHeadings } from './headings.js';
import { detectJsonLd } from './json-ld.js';
import { detectKeyValues } from './key-values.js';
import { detectLabelledFacts } from './labelled-facts.js';
import { detectMainPrice } from './main-price.js';
import { detectMetadata } from './metadata.js';
import { detectMicrodata } from './microdata.js';
import { mergeProductSources } from './product.js';
import { detectProductSources } from './product-sources.js';
import { rankProposals } from './rank.js';
import { detectRepeatedItems } from './repeated-items.js';
import { detectTables } from './tables.js';
import type { DetectContext, Proposal } from './types.js';
import { verifyProposals } from './verify.js';

/**
 * The built-in model: offline and deterministic. It reads the page once (htmlparser2), lets each detector
 * propose fields with selectors, drops what the structure engine cannot re-extract, and orders the rest by
 * the rule's keywords. It never fills model fields: at retrieval those stay null.
 */

export const HEURISTIC_MODEL_NAME = 'heuristic';

export function proposeStructure(input: GenerateInput): GenerateOutput {
  const selector = input.selector.trim() || 'body';
  const page = parseHtml(input.pageHtml || input.sectionHtml);
  let sectionRoots = selectIn(selector, page);
  // The engine reads the section from the page; if the selector finds nothing there, read the given section.
  if (sectionRoots.length === 0)
    sectionRoots = allElements(parseHtml(input.sectionHtml).children).filter((element) => element.parent?.type === 'root');
  // A fragment without <body> (the engine then reads top-level fields from the whole document): all of it.
  if (sectionRoots.length === 0) sectionRoots = page.children.filter(isElement);
  // Every element of the section in document order, walked once for the detectors that read them all.
  const context: DetectContext = { page, sectionRoots, sectionElements: allElements(sectionRoots), pageUrl: input.pageUrl };

  const markup = [...detectJsonLd(context), ...detectMicrodata(context), ...detectProductSources(context)];
  const productPage = markup.some((proposal) => proposal.productSource !== undefined);
  const proposals: Proposal[] = [
    ...detectMetadata(context),
    ...detectHeadings(context),
    ...detectMainPrice(context, { productPage }),
    ...detectLabelledFacts(context),
    ...markup,
    ...detectRepeatedItems(context),
    ...detectTables(context),
    ...detectKeyValues(context),
  ];
  // Page furniture is offered only when the page has no real content to describe.
  const hasContent = proposals.some((proposal) => ['jsonld', 'microdata', 'table', 'items'].includes(proposal.kind) && !proposal.weak);
  const useful = proposals.filter((proposal) => !(hasContent && proposal.weak && !proposal.trailing));
  // The product's facts from every source become one `product` object (product.ts), once each is verified.
  const verified = mergeProductSources(verifyProposals(dropDuplicateRegions(useful), page, input.pageUrl, selector), page, input.pageUrl);
  const structure = uniqueTopLevelNames(rankProposals(verified, input.rule));
  if (structure.length > 0) return { structure };
  // Nothing recognisable (a bare text page): the section's text is still better than no structure at all.
  const fallback = verifyProposals(
    [{ kind: 'heading', field: { name: 'text', type: 'string', selector: ':scope' }, score: 0, hints: 'text' }],
    page,
    input.pageUrl,
    selector,
  );
  return { structure: fallback.map((proposal) => proposal.field) };
}

/** Microdata arrays and item regions often describe the same elements: keep the one with more fields. */
function dropDuplicateRegions(proposals: Proposal[]): Proposal[] {
  return proposals.filter((proposal) => {
    if (!proposal.itemElements) return true;
    return !proposals.some((other) => {
      if (other === proposal || !other.itemElements || other.itemElements.length !== proposal.itemElements!.length) return false;
      if (!other.itemElements.every((element, index) => element === proposal.itemElements![index])) return false;
      const mine = proposal.field.fields?.length ?? 0;
      const theirs = other.field.fields?.length ?? 0;
      return theirs > mine || (theirs === mine && proposals.indexOf(other) < proposals.indexOf(proposal));
    });
  });
}

function uniqueTopLevelNames(structure: GenerateOutput['structure']): GenerateOutput['structure'] {
  const used = new Set<string>();
  return structure.map((field) => {
    let name = field.name;
    for (let n = 2; used.has(name); n++) name = `${field.name}${n}`;
    used.add(name);
    return name === field.name ? field : { ...field, name };
  });
}

export function createHeuristicModel(): Model {
  return {
    name: HEURISTIC_MODEL_NAME,
    async generate(input: GenerateInput): Promise<GenerateOutput> {
      return proposeStructure(input);
    },
    async fill(input: FillInput): Promise<FillOutput> {
      return { values: Object.fromEntries(input.fields.map((field) => [field.name, null])) };
    },
  };
}
