import { Parser } from 'htmlparser2';

/**
 * Whether a page as sent (before any script ran) looks built by its scripts: what scraper 1 or 2 reads of it is
 * a shell, and scraper 3 (a browser) would see the content. Judged from the markup alone, cheaply, for the CLI's
 * hints (`generate`, `run`), never on the daemon's answer path:
 *  - a `<noscript>` asking for JavaScript (the page says so itself);
 *  - an empty mount point of a client-side framework (`#root`, `#app`, `#__next`, `#__nuxt`, …) and a script;
 *  - little readable text in the body against much script (inline code, or script files only), unless the page
 *    sends its content as data (JSON-LD and other scripts of a data type are content, not code).
 */
export interface ScriptBuiltSignal {
  /** In words, for the hint: why the page looks built by scripts. */
  reason: string;
}

/** Ids frameworks mount their app into; empty in the page as sent. */
const MOUNT_IDS = new Set(['root', 'app', '__next', '__nuxt', '___gatsby', 'svelte', 'app-root', 'main-app', 'q-app']);
/** Body text under this many characters is a shell when scripts carry the rest. */
const SHELL_TEXT_CHARS = 200;
/** Elements whose content is not read by a person. */
const UNREAD = new Set(['script', 'style', 'noscript', 'template', 'head', 'title', 'svg']);

/** Script types a browser runs; any other (`application/ld+json`, `application/json`, …) is data, not code. */
const EXECUTABLE = /^(?:(?:text|application)\/(?:x-)?(?:java|ecma)script|module)$/i;

interface Tally {
  text: number;
  inlineScript: number;
  /** Characters of data scripts (JSON-LD, JSON): content sent with the page, read by `json:` selectors. */
  dataScript: number;
  /** The script element open now runs (not data). */
  runs: boolean;
  scriptFiles: number;
  noscriptText: string;
  /** A mount point seen open, and whether anything was put in it before it closed. */
  mount: { id: string; depth: number; filled: boolean } | undefined;
  emptyMount: string | undefined;
}

function tallyPage(html: string): Tally {
  const tally: Tally = {
    text: 0,
    inlineScript: 0,
    dataScript: 0,
    runs: false,
    scriptFiles: 0,
    noscriptText: '',
    mount: undefined,
    emptyMount: undefined,
  };
  const open: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (tally.mount) tally.mount.filled = true;
        open.push(name);
        if (name === 'script') {
          const type = attributes.type?.trim() ?? '';
          tally.runs = type === '' || EXECUTABLE.test(type);
          if (attributes.src && tally.runs) tally.scriptFiles += 1;
        }
        const id = attributes.id?.toLowerCase();
        if (id !== undefined && MOUNT_IDS.has(id) && !tally.mount && !tally.emptyMount)
          tally.mount = { id, depth: open.length, filled: false };
      },
      ontext(text) {
        const inside = open.at(-1) ?? '';
        if (inside === 'script') {
          if (tally.runs) tally.inlineScript += text.length;
          else tally.dataScript += text.length;
        } else if (inside === 'noscript' && tally.noscriptText.length < 500) tally.noscriptText += text;
        else if (!open.some((name) => UNREAD.has(name))) {
          const words = text.trim().length;
          tally.text += words;
          if (words > 0 && tally.mount) tally.mount.filled = true;
        }
      },
      onclosetag() {
        if (tally.mount && open.length === tally.mount.depth) {
          if (!tally.mount.filled) tally.emptyMount = tally.mount.id;
          tally.mount = undefined;
        }
        open.pop();
      },
    },
    { decodeEntities: true },
  );
  parser.end(html);
  return tally;
}

export function scriptBuiltSignal(html: string): ScriptBuiltSignal | undefined {
  const tally = tallyPage(html);
  const scripted = tally.scriptFiles > 0 || tally.inlineScript > 0;
  if (
    /\b(enable|requires?|needs?|turn on)\b[^.]{0,40}\bjavascript\b|\bjavascript\b[^.]{0,40}\b(required|disabled|enabled)\b/i.test(
      tally.noscriptText,
    )
  )
    return { reason: 'the page asks for JavaScript (<noscript>)' };
  if (tally.emptyMount !== undefined && scripted) return { reason: `its #${tally.emptyMount} element is empty until a script fills it` };
  // Data the page sends (a product's JSON-LD) is its content, not a sign that scripts build it.
  const shell =
    tally.text < SHELL_TEXT_CHARS &&
    tally.dataScript < SHELL_TEXT_CHARS &&
    (tally.inlineScript > Math.max(tally.text, 100) || (tally.scriptFiles > 0 && tally.inlineScript === 0));
  if (shell) return { reason: `it holds ${tally.text} characters of text and its content comes from scripts` };
  return undefined;
}
