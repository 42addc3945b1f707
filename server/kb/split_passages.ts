/**
 * Sections cut into passages of about `words` words, each repeating the last `overlap` words of
 * the one before, so a sentence cut at a boundary is whole in one of the two. A passage never
 * spans two sections: it keeps its section's heading, which both the embedding and the keyword
 * index see (a question often names the heading's words, not the body's).
 */
import type { Section } from "./read_document.ts";

export interface PassageText {
  heading: string | null;
  text: string;
}

export function splitPassages(
  sections: Section[],
  opts: { words: number; overlap: number },
): PassageText[] {
  const step = Math.max(1, opts.words - opts.overlap);
  const out: PassageText[] = [];
  for (const s of sections) {
    const words = s.text.split(/\s+/).filter((w) => w !== "");
    if (words.length === 0) continue;
    for (let start = 0;; start += step) {
      out.push({ heading: s.heading, text: words.slice(start, start + opts.words).join(" ") });
      if (start + opts.words >= words.length) break;
    }
  }
  return out;
}
