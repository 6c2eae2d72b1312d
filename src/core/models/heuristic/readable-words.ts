/**
 * Whether a word reads as a word to a maintainer, or is class-name shorthand or a build's hash that names
 * nothing (`mfes`, `ekabf`, `xOFAt`, `_2tW1I`).
 */

/** The words of a class name, label or header: camelCase, snake_case and kebab-case split, lower-cased. */
export function splitWords(raw: string): string[] {
  return raw
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9\u00c0-\u024f]+/)
    .filter((word) => word.length > 0);
}

/**
 * A class a build generated: led by a digit (`_2tW1I`, `2doMt`), or short with its case mixed in no word's way
 * (`xOFAt`, `kMvGAR`, `EKabf7`) where `navBar` or `ProductCard` read as words.
 */
export function looksHashed(cls: string): boolean {
  if (/^_?\d/.test(cls)) return true;
  if (cls.length > 8 || /[-_]/.test(cls) || (!/[A-Z]/.test(cls.slice(1)) && !/\d/.test(cls))) return false;
  return !splitWords(cls).every((word) => word.length >= 2 && isReadableWord(word));
}

/** Consonant clusters English words start with; others (`mf`, `gtk`, `rz`) are abbreviations or hashes. */
const ONSETS = new Set(
  'bl br ch cl cr dr dw fl fr gl gr gn kn kl ph pl pr ps sc sh sk sl sm sn sp st sw th tr tw wh wr sch scr shr sph spl spr str squ thr chr phr'.split(
    ' ',
  ),
);
/** Consonant clusters English words end with (`-nds`, `-cks`, `-ght`); others (`-bf`, `-kb`) are not words. */
const CODAS =
  /^(|[b-df-hj-np-tv-xz]|ck|ct|ft|ld|lf|lk|lm|lp|lt|lth|mp|nd|ng|nk|nt|pt|rb|rc|rd|rf|rg|rk|rl|rm|rn|rp|rt|rst|rld|sk|sp|ss|st|th|dth|pth|fth|xth|ch|sh|ll|ff|gh|ght|nth|rth|ngth|tch|nch|rch|lch|xt|mb|mn|wn|wl|wk|wd|ws|ks)s?$/;

/**
 * A word a reader recognises as a word: it has a vowel, starts and ends the way English words do and has no
 * run of four consonants. `mfes`, `rzds`, `ekabf`, `gtkis` are class-name shorthand that names nothing.
 */
export function isReadableWord(word: string): boolean {
  const lower = word.toLowerCase();
  // Letters and digits mixed (`39y5h`, `a2t`, `e15t7owz0`) are a build's hash; `mp3`, `4k`, `5g` are words.
  if (!/^[a-z]+$/.test(lower)) return /^\d+$/.test(lower) || /^([a-z]{2,3}\d{1,2}|\d{1,2}[a-z])$/.test(lower);
  if (lower.length <= 2 || !/[aeiouy]/.test(lower) || /[b-df-hj-np-tv-xz]{5}/.test(lower)) return false;
  // `y` is a vowel at the end (company) and a consonant at the start (year).
  const onset = /^[b-df-hj-np-tv-z]*/.exec(lower)![0];
  const coda = /[b-df-hj-np-tv-xz]*$/.exec(lower)![0];
  return (onset.length <= 1 || ONSETS.has(onset)) && CODAS.test(coda);
}

/** Every word of a camelCase name is readable. */
export function isReadableName(name: string): boolean {
  return splitWords(name).every((word) => /^\d+$/.test(word) || isReadableWord(word));
}
