/** Reading documents (text, Markdown, HTML, PDF) into sections, and sections into passages. */
import { assert, assertEquals, assertRejects } from "../../tests/assert.ts";
import { skipNote } from "../../tests/helpers/skip.ts";
import { AppError } from "../../core/errors.ts";
import { formatOfName, pdfSupported, readDocument } from "./read_document.ts";
import { splitPassages } from "./split_passages.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

Deno.test("Markdown: sections at headings, not at a # inside fenced code", async () => {
  const md =
    "intro words\n\n# One\n\nfirst body\n\n```sh\n# not a heading\n```\n\n## Two ##\n\nsecond";
  assertEquals(await readDocument("a.md", "markdown", bytes(md)), [
    { heading: null, text: "intro words" },
    { heading: "One", text: "first body\n\n```sh\n# not a heading\n```" },
    { heading: "Two", text: "second" },
  ]);
});

Deno.test("HTML: scripts, styles and comments go; headings start sections; entities decoded", async () => {
  const html = `<html><head><title>Guide</title><style>p{color:red}</style></head><body>
    <script>alert("x")</script><!-- hidden -->
    <h2 class="x">Setup &amp; <em>run</em></h2><p>Install&nbsp;it with <code>apt</code>.</p>
    <p>Then &lt;restart&gt; &#8212; done&#x21;</p></body></html>`;
  const sections = await readDocument("g.html", "html", bytes(html));
  assertEquals(sections.map((s) => s.heading), ["Guide", "Setup & run"]);
  const body = sections[1]!.text;
  assert(body.includes("Install it with apt."), body);
  assert(body.includes("Then <restart> — done!"), body);
  assert(
    !/alert|color|hidden/.test(sections.map((s) => s.text).join()),
    "no script, style, comment",
  );
});

Deno.test("text that is not UTF-8 is refused naming the document", async () => {
  const e = await assertRejects(
    () => readDocument("x.txt", "text", new Uint8Array([0xff, 0xfe])),
    AppError,
  );
  assertEquals(e.code, "kb_import_failed");
  assert(e.message.includes("x.txt"));
});

Deno.test("formats by extension", () => {
  assertEquals(
    ["a.MD", "b.htm", "c.pdf", "d.txt", "e"].map(formatOfName),
    ["markdown", "html", "pdf", "text", "text"],
  );
});

Deno.test("passages: windows of N words repeating the last K, never across sections", () => {
  const words = Array.from({ length: 25 }, (_, i) => `w${i}`).join(" ");
  const out = splitPassages([{ heading: "H", text: words }, { heading: "G", text: "short one" }], {
    words: 10,
    overlap: 3,
  });
  assertEquals(out.map((p) => p.text.split(" ")[0]), ["w0", "w7", "w14", "w21", "short"]);
  assertEquals(out[1]!.text.split(" ").slice(0, 3), ["w7", "w8", "w9"], "overlap repeated");
  assertEquals(out.at(-2)!.text, "w21 w22 w23 w24");
  assertEquals(out.map((p) => p.heading), ["H", "H", "H", "H", "G"]);
});

/** A one-page PDF with the given lines, uncompressed, with a correct cross-reference table. */
export function tinyPdf(lines: string[]): Uint8Array<ArrayBuffer> {
  const text = lines.map((l, i) =>
    `BT /F1 12 Tf 72 ${720 - 16 * i} Td (${l.replace(/[()\\]/g, "\\$&")}) Tj ET`
  ).join("\n");
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R " +
    "/Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const off of offsets) out += `${String(off).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

const noPdf = await pdfSupported() ? undefined : "npm package unpdf not installed (npm install)";

Deno.test({
  name: `PDF: the text of a real (small) PDF, read by unpdf${skipNote(noPdf)}`,
  ignore: !!noPdf,
  fn: async () => {
    const [s] = await readDocument(
      "t.pdf",
      "pdf",
      tinyPdf(["Quarterly report", "Revenue grew by 12 percent"]),
    );
    assert(s!.text.includes("Revenue grew by 12 percent"), s!.text);
    const bad = await assertRejects(
      () => readDocument("bad.pdf", "pdf", bytes("not a pdf")),
      AppError,
    );
    assert(bad.message.includes("bad.pdf"));
  },
});

Deno.test({
  name: `PDF without unpdf installed: refused, saying what to install${
    skipNote(noPdf ? undefined : "unpdf is installed here")
  }`,
  ignore: !noPdf,
  fn: async () => {
    const e = await assertRejects(() => readDocument("t.pdf", "pdf", tinyPdf(["x"])), AppError);
    assert(e.message.includes("unpdf"), e.message);
  },
});
