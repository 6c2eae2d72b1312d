import type { AnyNode } from 'domhandler';
import type { Field } from '../../config/index.js';
import type { Document, Element } from '../../extract/index.js';

/** What every detector sees: the page and the section, each parsed once. */
export interface DetectContext {
  page: Document;
  /** The section as the structure engine sees it at retrieval: the config selector's matches. */
  sectionRoots: AnyNode[];
  /** Every element of the section, roots included, in document order. */
  sectionElements: Element[];
  pageUrl: string;
}

export type ProposalKind = 'metadata' | 'jsonld' | 'microdata' | 'table' | 'items' | 'heading';

/** One top-level field a detector offers, with what the ranking needs to know about it. */
export interface Proposal {
  kind: ProposalKind;
  field: Field;
  /** Higher is more useful; detectors score on their own scale, rank.ts orders by kind first. */
  score: number;
  /** Words describing the proposal (names, classes, sample text) for matching the rule's keywords. */
  hints: string;
  /** For arrays: the item elements, so that two detectors describing the same items can be deduplicated. */
  itemElements?: Element[];
  /** Probably page furniture (menus, link lists, sidebars): offered only when nothing better is found. */
  weak?: boolean;
  /**
   * Furniture offered anyway, last: the page's largest repeated region when it is larger than every content
   * region (a site's full category menu, a long index of links). A reader may well want it; it never comes
   * before the page's own data.
   */
  trailing?: boolean;
  /**
   * A source of the page's product facts, by trust: 0 JSON-LD, 1 microdata, 2 RDFa, 3 OpenGraph tags, 4 the page
   * itself. product.ts merges them into one `product` object, one field per attribute (see PRODUCT_SOURCE).
   */
  productSource?: number;
}
