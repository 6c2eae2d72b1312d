/**
 * The `availability` transform: a product's availability as its schema.org name (`InStock`, `OutOfStock`,
 * `PreOrder`, …), from a schema.org value (`https://schema.org/InStock`, `instock`, `OutOfStock`) or from the
 * words a shop writes in its own language ("Auf Lager", "Agotado", "Disponível", "Only 3 left"). Anything
 * else ("Check in-store stock", a shipping place) is null: not knowing is better than a wrong answer.
 */

const SCHEMA_NAMES = [
  'InStock',
  'OutOfStock',
  'PreOrder',
  'PreSale',
  'BackOrder',
  'Discontinued',
  'InStoreOnly',
  'OnlineOnly',
  'LimitedAvailability',
  'SoldOut',
  'Reserved',
  'MadeToOrder',
];
const BY_LOWER_NAME = new Map(SCHEMA_NAMES.map((name) => [name.toLowerCase(), name]));

/** Words, in the order tried: a negation ("not available") must be read before the word it negates. */
const PHRASES: Array<[RegExp, string]> = [
  [
    /\b(out[\s-]?of[\s-]?stock|sold[\s-]?out|unavailable|not (currently )?available|no longer available|currently unavailable)\b|ausverkauft|nicht (mehr )?(verf[üu]gbar|lieferbar|auf lager|vorr[äa]tig)|vergriffen|[ée]puis[ée]|rupture de stock|indisponible|non disponible|agotado|sin (stock|existencias)|no disponible|esgotado|indispon[íi]vel|esaurito|non disponibile|niet (op voorraad|leverbaar|beschikbaar)|uitverkocht|brak w magazynie|niedost[ęe]pny|wyprzedany|t[üu]kendi|stokta yok|нет в наличии|распродан|在庫(切れ|なし)|品切れ|売り切れ|缺货|缺貨|售罄|售完|품절|일시품절|재고 ?없음|nema na (stanju|zalihi)|nije dostupn[oa]|rasprodan[oa]?|nie je na sklade|vypredan[éeý]|nedostupn[éeýá]|nen[íi] skladem|vyprod[áa]no|nincs rakt[áa]ron|elfogyott|stoc epuizat|indisponibil|nu este [îi]n stoc/i,
    'OutOfStock',
  ],
  [/\bnotify me\b|benachrichtig|m'avertir|av[íi]same|avisar-me|avvisami|powiadom mnie/i, 'OutOfStock'],
  [/\bpre[\s-]?order|\bvorbestell|pr[ée][\s-]?commande|pre[\s-]?venta|preventa|pr[ée][\s-]?venda|予約/i, 'PreOrder'],
  [/\bback[\s-]?order|nachbestell|sur commande|bajo pedido|su ordinazione/i, 'BackOrder'],
  [/\bdiscontinued\b|nicht mehr im sortiment|descatalogado|fuori produzione/i, 'Discontinued'],
  [
    /\b(only|just) \d+ left\b|\blow stock\b|\blimited (stock|availability)\b|nur noch \d+|plus que \d+|quedan \d+|[úu]ltimas? unidades/i,
    'LimitedAvailability',
  ],
  [/\bin[\s-]?store only\b|nur im (laden|markt|gesch[äa]ft)|uniquement en magasin|solo en tienda/i, 'InStoreOnly'],
  [
    /\b(in[\s-]?stock|available( now| online)?|ready to ship|ships (today|within|in)|auf lager|lieferbar|verf[üu]gbar|vorr[äa]tig|en stock|disponible|en existencia|disponivel|disponível|em estoque|disponibile|op voorraad|leverbaar|dost[ęe]pny|w magazynie|stokta( var)?)\b|в наличии|有货|有貨|現貨|现货|在庫あり|재고 ?있음|구매 ?가능|na (stanju|zalihi)|dostupno|na sklade|skladom|skladem|rakt[áa]ron|[îi]n stoc/i,
    'InStock',
  ],
  // The shop's buy button: a product it offers to put in the cart is one it sells now.
  [
    /\b(add to (cart|bag|basket|trolley)|buy now|buy it now|in den (warenkorb|einkaufswagen)|ajouter au panier|a[ñn]adir al carrito|adicionar ao carrinho|aggiungi al carrello|in winkelwagen|do koszyka|sepete ekle)\b|в корзину|カートに入れる|加入购物车|加入購物車|장바구니 ?담기|바로 ?구매|dodaj u ko[šs]aricu|(prida[tť] )?do ko[šs][íi]ka|do ko[šs][íi]ku|kos[áa]rba|adaug[ăa] [îi]n co[șşs]/i,
    'InStock',
  ],
  // A button of one buy verb ("Buy", "Купить", "Kaufen"): the whole text, so that prose about buying says nothing.
  [
    /^\s*(buy|kaufen|jetzt kaufen|comprar|acheter|acquista|compra|kopen|kup|köp|kjøp|køb|osta|купить|придбати|購入(する)?|立即购买|购买|立即購買|購買|구매하기|구매|kupi|k[úu]pi[tť]|koupit|v[áa]s[áa]rl[áa]s|cump[ăa]r[ăa])\s*[!.]?\s*$/i,
    'InStock',
  ],
];

export function toAvailability(value: unknown): string | null {
  if (typeof value === 'boolean') return value ? 'InStock' : 'OutOfStock';
  if (typeof value !== 'string') return null;
  const text = value.trim().slice(0, 200);
  // A schema.org value: the last segment of a URL or a prefixed name, or the bare name.
  const last = text.replace(/^.*[/#:]/, '').replace(/[\s_-]+/g, '');
  const named = BY_LOWER_NAME.get(last.toLowerCase());
  if (named) return named;
  for (const [pattern, name] of PHRASES) if (pattern.test(text)) return name;
  return null;
}
