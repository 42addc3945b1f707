/**
 * An accessibility check run inside the page (axe-core is not among the installed packages):
 * every visible control has a label, every button and link a name, every svg picture a label,
 * <html lang> is set, and text meets WCAG 2 AA contrast (4.5:1; 3:1 for large text). Disabled
 * controls are exempt from contrast, as WCAG says. Returns one line per violation.
 */
export const a11yCheck = `(() => {
  const out = [];
  const visible = (el) => {
    const s = getComputedStyle(el);
    if (s.display === "none" || s.visibility === "hidden") return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const describe = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
    (el.getAttribute("name") ? "[name=" + el.getAttribute("name") + "]" : "");
  if (!document.documentElement.lang) out.push("html has no lang");
  const nameOf = (el) => {
    const byIds = (el.getAttribute("aria-labelledby") || "").split(/\\s+/).filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent || "").join(" ").trim();
    if (byIds) return byIds;
    if ((el.getAttribute("aria-label") || "").trim()) return el.getAttribute("aria-label");
    if (el.labels && [...el.labels].some((l) => l.textContent.trim())) return "label";
    return "";
  };
  for (const el of document.querySelectorAll("input, select, textarea")) {
    if (el.type === "hidden" || !visible(el)) continue;
    if (!nameOf(el)) out.push("control without a label: " + describe(el));
  }
  for (const el of document.querySelectorAll("button, a[href]")) {
    if (!visible(el)) continue;
    if (!el.textContent.trim() && !nameOf(el)) out.push("no accessible name: " + describe(el));
  }
  for (const el of document.querySelectorAll("svg[role=img]")) {
    if (!nameOf(el)) out.push("svg picture without a label");
  }
  const rgb = (c) => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const lum = ({ r, g, b }) => {
    const f = (v) => {
      v /= 255;
      return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const blend = (top, under) => ({
    r: top.r * top.a + under.r * (1 - top.a),
    g: top.g * top.a + under.g * (1 - top.a),
    b: top.b * top.a + under.b * (1 - top.a),
    a: 1,
  });
  const background = (el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0) {
        layers.push(c);
        if (c.a >= 1) break;
      }
    }
    let bg = { r: 255, g: 255, b: 255, a: 1 };
    for (const c of layers.reverse()) bg = blend(c, bg);
    return bg;
  };
  const seen = new Set();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || seen.has(el) || !n.textContent.trim()) continue;
    seen.add(el);
    if (!visible(el) || el.closest("[disabled], svg, option, noscript")) continue;
    const s = getComputedStyle(el);
    const fg0 = rgb(s.color);
    if (!fg0) continue;
    const bg = background(el);
    const fg = blend(fg0, bg);
    const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
    const ratio = (hi + 0.05) / (lo + 0.05);
    const size = parseFloat(s.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
    const need = large ? 3 : 4.5;
    if (ratio < need) {
      out.push("contrast " + ratio.toFixed(2) + " < " + need + ": " + describe(el) + " '" +
        n.textContent.trim().slice(0, 40) + "'");
    }
  }
  return out;
})()`;
