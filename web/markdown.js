// A tiny, safe markdown for chat answers: the text is escaped first, then a small subset (code
// blocks, inline code, bold, italics, http(s) links, headings, lists) is applied to the escaped
// text, so no tag or attribute the model writes can reach the page. Plain script, no build step:
// it sets globalThis.llmgwMarkdown (tests import it the same way).
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
  function markdown(text) {
    const out = [];
    const parts = escapeHtml(text).split(/```/);
    parts.forEach((part, i) => {
      if (i % 2 === 1) {
        const nl = part.indexOf("\n");
        const body = nl >= 0 ? part.slice(nl + 1) : part;
        out.push("<pre><code>" + body.replace(/\n$/, "") + "</code></pre>");
        return;
      }
      let list = false;
      for (const line of part.split("\n")) {
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
    });
    return out.join("");
  }

  globalThis.llmgwMarkdown = markdown;
})();
