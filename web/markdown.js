// A tiny, safe markdown for chat answers: prose is escaped first, then a small subset (inline
// code, bold, italics, http(s) links, headings, lists) is applied to the escaped text; a code
// block is cut into tokens (comments, strings, numbers, keywords) and each token is escaped on
// its own, so no tag or attribute the model writes can reach the page. Plain script, no build
// step: it sets globalThis.llmgwMarkdown (tests import it the same way).
(() => {
  function escapeHtml(s) {
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#39;");
  }
  function inline(s) {
    // s is already escaped.
    return s
      .replace(/`([^`]+)`/g, "<code>$1</code>")
      .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
      .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>")
      .replace(
        /\[([^\]]+)\]\((https?:\/\/[^\s)"']+)\)/g,
        '<a href="$2" rel="noopener noreferrer" target="_blank">$1</a>',
      );
  }

  // Words that are keywords in most of the languages people paste (C-like, Python, shell, SQL).
  const keywords = new Set(
    ("if else elif for while do return function def class import from export const let var " +
      "new try catch except finally throw raise async await yield break continue switch case " +
      "default in of is not and or None null undefined true false True False this self struct " +
      "enum fn pub use mod impl match type interface package func go defer select where SELECT " +
      "FROM WHERE INSERT UPDATE DELETE JOIN GROUP ORDER BY then fi done esac echo lambda with as")
      .split(" "),
  );
  const hashComments = new Set([
    "py",
    "python",
    "sh",
    "bash",
    "shell",
    "zsh",
    "yaml",
    "yml",
    "rb",
    "ruby",
    "toml",
    "r",
  ]);

  /** A code block's HTML: each token escaped, comments, strings, numbers and keywords marked. */
  function highlight(code, lang) {
    const comment = hashComments.has(lang)
      ? String.raw`#[^\n]*|\/\/[^\n]*|\/\*[\s\S]*?\*\/`
      : String.raw`\/\/[^\n]*|\/\*[\s\S]*?\*\/|--[^\n]*`;
    const re = new RegExp(
      `(${comment})|("(?:[^"\\\\\\n]|\\\\.)*"|'(?:[^'\\\\\\n]|\\\\.)*'|\`(?:[^\`\\\\]|\\\\.)*\`)` +
        String.raw`|\b(\d+(?:\.\d+)?)\b|\b([A-Za-z_]\w*)\b`,
      "g",
    );
    let out = "";
    let at = 0;
    for (const m of code.matchAll(re)) {
      const [all, c, s, n, word] = m;
      const kind = c ? "c" : s ? "s" : n ? "n" : word && keywords.has(word) ? "k" : null;
      if (!kind) continue;
      out += escapeHtml(code.slice(at, m.index));
      out += `<span class="tok-${kind}">${escapeHtml(all)}</span>`;
      at = m.index + all.length;
    }
    return out + escapeHtml(code.slice(at));
  }

  function prose(part, out) {
    let list = false;
    for (const line of escapeHtml(part).split("\n")) {
      const h = /^(#{1,3}) (.*)$/.exec(line);
      const li = /^\s*[-*] (.*)$/.exec(line);
      if (li) {
        if (!list) out.push("<ul>");
        list = true;
        out.push("<li>" + inline(li[1]) + "</li>");
        continue;
      }
      if (list) out.push("</ul>");
      list = false;
      if (h) {
        out.push("<h" + (h[1].length + 2) + ">" + inline(h[2]) + "</h" + (h[1].length + 2) + ">");
      } else if (line.trim()) out.push("<p>" + inline(line) + "</p>");
    }
    if (list) out.push("</ul>");
  }

  function markdown(text) {
    const out = [];
    text.split(/```/).forEach((part, i) => {
      if (i % 2 === 0) return prose(part, out);
      const nl = part.indexOf("\n");
      const lang = nl >= 0 ? part.slice(0, nl).trim().toLowerCase() : "";
      const body = (nl >= 0 ? part.slice(nl + 1) : part).replace(/\n$/, "");
      const cls = /^[a-z0-9+#-]{1,20}$/.test(lang) ? ` class="lang-${escapeHtml(lang)}"` : "";
      out.push(`<pre><code${cls}>` + highlight(body, lang) + "</code></pre>");
    });
    return out.join("");
  }

  globalThis.llmgwMarkdown = markdown;
})();
