import type { ServerResponse } from 'node:http';
import type { RouteHandler } from '../site.js';

/**
 * What anti-bot layers answer instead of the page (docs/block-pages.md), as they look in the wild: Cloudflare's
 * challenge (403 marked `cf-mitigated: challenge`, and the same page answered 200), captcha pages of reCAPTCHA,
 * hCaptcha and Turnstile with little else, an "Access Denied" page answered 200, and a 429 with Retry-After.
 * Beside them, pages that must not be taken for block pages: a contact page with a reCAPTCHA and plenty of text,
 * an article that quotes a challenge page's words.
 *
 * `/blocks/switch.html` serves the data, or a block page while `site.state.get('blocks')` names one
 * (`challenge`, `captcha`, `denied`), so a test can see an endpoint blocked and then recover.
 */
const HTML = 'text/html; charset=utf-8';

export const CHALLENGE_PAGE = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="390"><meta name="robots" content="noindex,nofollow">
<style>body{font-family:system-ui}</style></head><body>
<div class="main-wrapper" role="main"><div class="main-content">
<h1 class="zone-name-title h1">shop.example</h1>
<h2 class="h2" id="challenge-running">Checking if the site connection is secure</h2>
<noscript><div class="h2">Enable JavaScript and cookies to continue</div></noscript>
<div id="challenge-body-text" class="core-msg spacer">shop.example needs to review the security of your connection before proceeding.</div>
<form id="challenge-form" action="/blocks/challenge.html?__cf_chl_f_tk=abc" method="POST" enctype="application/x-www-form-urlencoded"><input type="hidden" name="md" value="xyz"></form>
</div></div>
<script>(function(){window._cf_chl_opt={cvId: '3',cZone: "shop.example",cType: 'managed',cNounce: '12345'};var cpo = document.createElement('script');cpo.src = '/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8a';document.getElementsByTagName('head')[0].appendChild(cpo);}());</script>
</body></html>`;

export const CAPTCHA_PAGES: Readonly<Record<string, string>> = {
  recaptcha: `<!doctype html><html><head><title>Verify you are a human</title><script src="https://www.google.com/recaptcha/api.js" async defer></script></head>
<body><main><p>Please complete the check below to continue.</p><form method="post"><div class="g-recaptcha" data-sitekey="6Lc_aXkUAAAAAD"></div><button>Continue</button></form></main></body></html>`,
  hcaptcha: `<!doctype html><html><head><title>One more step</title><script src="https://js.hcaptcha.com/1/api.js" async></script></head>
<body><p>Please solve the captcha.</p><div class="h-captcha" data-sitekey="10000000-ffff-ffff-ffff-000000000001"></div></body></html>`,
  turnstile: `<!doctype html><html><head><title>Checking</title><script src="https://challenges.cloudflare.com/turnstile/v0/api.js" async defer></script></head>
<body><form><div class="cf-turnstile" data-sitekey="1x00000000000000000000AA"></div></form></body></html>`,
};

export const DENIED_PAGE = `<!doctype html><html><head><title>Access Denied</title></head><body>
<h1>Access Denied</h1>
You don't have permission to access "http://shop.example/catalogue/" on this server.<p>
Reference #18.4f2a3e17.1700000000.1a2b3c4d</p>
</body></html>`;

export const DATA_PAGE = `<!doctype html><html><head><title>Prices</title></head><body>
<h1>Prices</h1><ul class="prices"><li class="item"><span class="name">Tea</span> <span class="price">3.50</span></li>
<li class="item"><span class="name">Coffee</span> <span class="price">4.20</span></li></ul></body></html>`;

/** A real page with a captcha in its form and plenty besides: it is data, not a block. */
const filler = Array.from(
  { length: 40 },
  (_, index) =>
    `<p>Our shop has served the neighbourhood since ${1900 + index}: ask us about teas, coffees, cakes and the rest of the menu.</p>`,
).join('\n');
export const CONTACT_PAGE = `<!doctype html><html><head><title>Contact us</title><script src="https://www.google.com/recaptcha/api.js"></script></head><body>
<nav><a href="/">Home</a> <a href="/menu">Menu</a> <a href="/about">About</a></nav>
<h1>Contact us</h1><address class="address">1 High Street, Sampletown</address>
${filler}
<form method="post"><textarea name="message"></textarea><div class="g-recaptcha" data-sitekey="6Lc_aXkUAAAAAD"></div><button>Send</button></form>
</body></html>`;

/** An article about block pages: their words in the text, and a page's worth of it. */
export const ARTICLE_PAGE = `<!doctype html><html><head><title>Why sites say "Just a moment..."</title></head><body>
<h1 class="headline">Access denied? Why sites show challenges</h1>
${filler}
<pre>window._cf_chl_opt = { cType: 'managed' }</pre>
</body></html>`;

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': HTML, ...headers });
  res.end(body);
}

export const blockRoutes: Record<string, RouteHandler> = {
  '/blocks/challenge-cf.html': (_req, res) => send(res, 403, CHALLENGE_PAGE, { 'cf-mitigated': 'challenge', server: 'cloudflare' }),
  '/blocks/challenge-200.html': (_req, res) => send(res, 200, CHALLENGE_PAGE),
  '/blocks/recaptcha.html': (_req, res) => send(res, 200, CAPTCHA_PAGES.recaptcha!),
  '/blocks/hcaptcha.html': (_req, res) => send(res, 200, CAPTCHA_PAGES.hcaptcha!),
  '/blocks/turnstile.html': (_req, res) => send(res, 200, CAPTCHA_PAGES.turnstile!),
  '/blocks/denied.html': (_req, res) => send(res, 200, DENIED_PAGE),
  '/blocks/contact.html': (_req, res) => send(res, 200, CONTACT_PAGE),
  '/blocks/article.html': (_req, res) => send(res, 200, ARTICLE_PAGE),
  '/blocks/data.html': (_req, res) => send(res, 200, DATA_PAGE),
  // 429 with Retry-After: `?after=N` seconds (120 by default), `?after=` for none, `?date=1` as an HTTP date N s ahead.
  '/blocks/rate-limited.html': (req, res) => {
    const query = new URL(req.url ?? '/', 'http://fixture').searchParams;
    const after = query.get('after') ?? '120';
    const headers: Record<string, string> = {};
    if (after !== '')
      headers['retry-after'] = query.get('date') === '1' ? new Date(Date.now() + Number(after) * 1000).toUTCString() : after;
    send(res, 429, '<!doctype html><title>Too Many Requests</title><h1>Too Many Requests</h1>', headers);
  },
  '/blocks/switch.html': (_req, res, site) => {
    const block = site.state.get('blocks');
    if (block === 'challenge') return send(res, 200, CHALLENGE_PAGE);
    if (block === 'captcha') return send(res, 200, CAPTCHA_PAGES.recaptcha!);
    if (block === 'denied') return send(res, 200, DENIED_PAGE);
    if (block === 'rate-limited')
      return send(res, 429, '<!doctype html><title>Too Many Requests</title>', { 'retry-after': site.state.get('retryAfter') ?? '60' });
    return send(res, 200, DATA_PAGE);
  },
};
