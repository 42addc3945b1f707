// Live sections: an element with data-live="URL" is re-read every data-every ms and replaced.
// The refresh pauses while a field has focus or any form on the page has unsent typing, so typed
// text, open choices and focus are never lost to it (v0.14.6's lesson).
(() => {
  const dirty = new Set();
  document.addEventListener("input", (ev) => {
    const form = ev.target.closest("form");
    if (form) dirty.add(form);
  });
  document.addEventListener("submit", (ev) => dirty.delete(ev.target));
  const paused = () => {
    const a = document.activeElement;
    const typing = a && a.matches("input, select, textarea, [contenteditable]");
    return typing || [...dirty].some((f) => document.contains(f));
  };
  for (const el of document.querySelectorAll("[data-live]")) {
    const every = Number(el.dataset.every) || 4000;
    const note = document.getElementById("live-paused");
    const tick = async () => {
      if (paused()) {
        if (note) note.hidden = false;
      } else {
        if (note) note.hidden = true;
        try {
          const res = await fetch(el.dataset.live, { headers: { accept: "text/html" } });
          // Checked again: a person may have started typing while the answer was on its way.
          if (res.ok && !paused()) el.innerHTML = await res.text();
        } catch { /* the next tick tries again */ }
      }
      setTimeout(tick, every);
    };
    setTimeout(tick, every);
  }
})();
