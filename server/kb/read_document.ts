/**
 * A document's bytes as sections of plain text (a heading and what follows it), the form the
 * passage splitter takes. Text and Markdown are read as they are (Markdown's headings start
 * sections); HTML by a careful strip of its tags, not a parser: scripts, styles and comments go,
 * block elements end lines, h1–h6 start sections, entities are decoded. PDF through unpdf (a
 * well-kept wrapper of Mozilla's pdf.js that runs in Deno), loaded only when a PDF comes.
 */
import { AppError } from "../../core/errors.ts";

export const documentFormats = ["text", "markdown", "html", "pdf"] as const;
export type DocumentFormat = typeof documentFormats[number];

export interface Section {
  heading: string | null;
  text: string;
}

/** The format a name's extension says; text when it says nothing we know. */
export function formatOfName(name: string): DocumentFormat {
  const ext = name.toLowerCase().split(".").pop() ?? "";
  if (ext === "md" || ext === "markdown") return "markdown";
  if (ext === "html" || ext === "htm") return "html";
  if (ext === "pdf") return "pdf";
  return "text";
}

export async function readDocument(
  name: string,
  format: DocumentFormat,
  bytes: Uint8Array,
): Promise<Section[]> {
  if (format === "pdf") return [{ heading: null, text: await pdfText(name, bytes) }];
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw failed(name, "it is not UTF-8 text");
  }
  if (format === "html") return markdownSections(htmlToText(text));
  if (format === "markdown") return markdownSections(text);
  return [{ heading: null, text }];
}

/** Sections at each ATX heading (`#` … `######`), outside fenced code. */
export function markdownSections(text: string): Section[] {
  const out: Section[] = [];
  let heading: string | null = null;
  let lines: string[] = [];
  let fenced = false;
  const flush = () => {
    const body = lines.join("\n").trim();
    if (body || heading) out.push({ heading, text: body });
    lines = [];
  };
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (m) {
      flush();
      heading = m[1]!;
    } else lines.push(line);
  }
  flush();
  return out;
}

const blockTags =
  /<\/?(p|div|br|li|ul|ol|tr|table|section|article|header|footer|nav|main|blockquote|pre|dd|dt|dl|hr|figure|figcaption)\b[^>]*>/gi;

/** HTML to text with its headings as Markdown's, so the sections are found the same way. */
export function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<!--[\s\S]*?-->/g, "")
      .replace(/<(script|style|template|noscript|svg)\b[\s\S]*?<\/\1\s*>/gi, "")
      .replace(/<head\b[\s\S]*?<\/head\s*>/gi, (head) => {
        const title = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(head)?.[1];
        return title ? `\n# ${title.trim()}\n` : "";
      })
      .replace(
        /<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi,
        (_, n, inner) => `\n${"#".repeat(Number(n))} ${inner.replace(/<[^>]*>/g, "").trim()}\n`,
      )
      .replace(blockTags, "\n")
      .replace(/<[^>]*>/g, ""),
  ).replace(/[ \t]+/g, " ").replace(/\n\s*\n\s*/g, "\n\n").trim();
}

const namedEntities: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  copy: "©",
  rsquo: "’",
  lsquo: "‘",
  rdquo: "”",
  ldquo: "“",
};

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (all, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : all;
    }
    return namedEntities[e.toLowerCase()] ?? all;
  });
}

interface Unpdf {
  getDocumentProxy(data: Uint8Array): Promise<unknown>;
  extractText(pdf: unknown, opts: { mergePages: true }): Promise<{ text: string }>;
}

// A name, not a literal: the package is optional (only PDFs need it), so the type check and a
// checkout without it still work; a PDF then gets a refusal that says what to install.
const unpdfPackage = "unpdf";

async function pdfText(name: string, bytes: Uint8Array): Promise<string> {
  let unpdf: Unpdf;
  try {
    unpdf = await import(unpdfPackage) as Unpdf;
  } catch {
    throw failed(name, "reading PDF needs the npm package unpdf, which is not installed here");
  }
  try {
    const doc = await unpdf.getDocumentProxy(new Uint8Array(bytes));
    const { text } = await unpdf.extractText(doc, { mergePages: true });
    if (!text.trim()) throw new Error("no text");
    return text;
  } catch {
    throw failed(name, "it is not a PDF with text in it");
  }
}

/** Whether PDFs can be read here (unpdf installed). */
export async function pdfSupported(): Promise<boolean> {
  try {
    await import(unpdfPackage);
    return true;
  } catch {
    return false;
  }
}

function failed(document: string, detail: string): AppError {
  return new AppError("kb_import_failed", { document, detail });
}
