/**
 * Text as the rules see it: NFKC (full-width and other compatibility letters fold to plain ones)
 * with zero-width and bidirectional control characters removed, so a pattern cannot be dodged by
 * spelling a word with look-alikes or invisible joiners.
 */
const invisible = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
// Cheap test first: nearly every prompt is plain ASCII and needs no work at all.
// deno-lint-ignore no-control-regex
const nonAscii = /[^\x00-\x7f]/;

export function normalizeText(text: string): string {
  if (!nonAscii.test(text)) return text;
  return text.normalize("NFKC").replace(invisible, "");
}
