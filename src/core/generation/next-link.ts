// The next-link proposal is shared with heal's repair: it lives in extract (src/core/extract/page/next-link-proposal.ts).
export { paginationProposal, proposeNextLink, type NextLinkProposal } from '../extract/index.js';
