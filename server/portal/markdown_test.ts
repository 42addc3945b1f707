/** The chat's markdown (web/markdown.js) escapes first: nothing the model writes becomes a tag. */
import { assert, assertEquals } from "../../tests/assert.ts";
import "../../web/markdown.js";

const md = (globalThis as unknown as { llmgwMarkdown: (s: string) => string }).llmgwMarkdown;

Deno.test("chat markdown: a small subset, rendered safely", () => {
  assertEquals(md("**bold** and `x<y`"), "<p><strong>bold</strong> and <code>x&lt;y</code></p>");
  assertEquals(
    md('```js\nif (a < b) alert(1) // "x" <b>\n```'),
    '<pre><code class="lang-js"><span class="tok-k">if</span> (a &lt; b) alert(' +
      '<span class="tok-n">1</span>) <span class="tok-c">// &quot;x&quot; &lt;b&gt;</span>' +
      "</code></pre>",
  );
  assertEquals(
    md("```python\nx = 'a<b>' # note\n```"),
    '<pre><code class="lang-python">x = <span class="tok-s">&#39;a&lt;b&gt;&#39;</span> ' +
      '<span class="tok-c"># note</span></code></pre>',
  );
  const fenced = md('```"><img src=x onerror=alert(1)>\n<script>alert(2)</script>\n```');
  assert(!/<(img|script)/.test(fenced), `a fence's language and body stay text: ${fenced}`);
  assertEquals(md("- one\n- two"), "<ul><li>one</li><li>two</li></ul>");
  const attacks = [
    '<img src=x onerror="alert(1)">',
    "<script>alert(1)</script>",
    "[click](javascript:alert(1))",
    '[x](https://e.com/" onmouseover="alert(1))',
    "`<b>`**<i>x</i>**",
  ];
  for (const a of attacks) {
    const html = md(a);
    const tags = [...html.matchAll(/<\/?([a-z0-9]+)/g)].map((m) => m[1]);
    assert(tags.every((t) => ["p", "code", "strong", "em", "a"].includes(t!)), `${a} → ${html}`);
    assert(!/<a [^>]*(javascript:|\son\w+=)/.test(html), `no script link: ${html}`);
  }
  assertEquals(
    md("[docs](https://example.com/a_b)"),
    '<p><a href="https://example.com/a_b" rel="noopener noreferrer" target="_blank">docs</a></p>',
  );
});
