/**
 * Layout checks run inside a portal page, by element boxes rather than by eye: the page never
 * scrolls sideways; on a narrow screen the navigation bars stay short; a table wider than its box
 * sits in a scroll box that shows a cue (edge shadows); a row of actions does not stack full
 * width; a checkbox sits on its label's line. Returns one line per problem.
 */
export const layoutCheck = `(() => {
  const out = [];
  const width = innerWidth;
  const box = (el) => el.getBoundingClientRect();
  const shown = (el) => {
    const s = getComputedStyle(el);
    const r = box(el);
    return s.display !== "none" && s.visibility !== "hidden" && r.width > 0 && r.height > 0;
  };
  if (document.documentElement.scrollWidth > width + 1) {
    out.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " > " + width);
  }
  if (width <= 400) {
    const bars = [...document.querySelectorAll("header.top, nav.admin")]
      .reduce((h, el) => h + box(el).height, 0);
    if (bars > 140) out.push("the navigation takes " + Math.round(bars) + " px at " + width);
  }
  for (const t of document.querySelectorAll("table")) {
    if (!shown(t)) continue;
    const wrap = t.closest(".scroll");
    if (!wrap) {
      if (box(t).right > width + 1) out.push("a table is cut off, with no scroll box");
      continue;
    }
    if (wrap.scrollWidth > wrap.clientWidth + 1) {
      const s = getComputedStyle(wrap);
      if (!/auto|scroll/.test(s.overflowX)) out.push("a wide table's box does not scroll");
      if (!s.backgroundImage.includes("gradient")) out.push("a wide table has no scroll cue");
    }
  }
  if (width > 1000) {
    for (const row of document.querySelectorAll(".actions")) {
      if (!shown(row)) continue;
      const full = box(row).width;
      for (const child of row.children) {
        if (shown(child) && box(child).width > full * 0.6) {
          out.push("an action takes the row's full width: " + child.textContent.trim().slice(0, 30));
        }
      }
    }
  }
  for (const label of document.querySelectorAll("label")) {
    const check = label.querySelector("input[type=checkbox], input[type=radio]");
    if (!check || !shown(label)) continue;
    const l = box(label);
    const c = box(check);
    const middle = c.top + c.height / 2;
    if (c.width > 40 || middle < l.top || middle > l.bottom || l.height > 48) {
      out.push("a checkbox sits apart from its label: " + label.textContent.trim().slice(0, 30));
    }
  }
  return out;
})()`;
