// A model page's engine log: #engine-log is read again every data-every ms while #log-follow is
// ticked and the tab is shown. Each log stays scrolled to its end unless the reader scrolled up.
// Only #log-status is a live region, told at most every 30 s, so a chatty engine is not read out.
(() => {
  const box = document.getElementById("engine-log");
  const follow = document.getElementById("log-follow");
  const status = document.getElementById("log-status");
  if (!box || !follow || !status) return;
  const every = Number(box.dataset.every) || 5000;
  let toldAt = 0;
  const atEnd = (pre) => pre.scrollHeight - pre.scrollTop - pre.clientHeight < 8;
  const toEnd = () => {
    for (const pre of box.querySelectorAll("pre.log")) pre.scrollTop = pre.scrollHeight;
  };
  toEnd();
  const tick = async () => {
    if (follow.checked && !document.hidden) {
      try {
        const res = await fetch(box.dataset.log, { headers: { accept: "text/html" } });
        const next = document.createElement("div");
        next.innerHTML = res.ok ? await res.text() : "";
        if (res.ok && next.textContent !== box.textContent) {
          const ended = new Map([...box.querySelectorAll("pre.log")].map((p) => [p.id, atEnd(p)]));
          const kept = new Map(
            [...box.querySelectorAll("pre.log")].map((p) => [p.id, p.scrollTop]),
          );
          box.replaceChildren(...next.childNodes);
          for (const pre of box.querySelectorAll("pre.log")) {
            pre.scrollTop = ended.get(pre.id) === false ? kept.get(pre.id) : pre.scrollHeight;
          }
          if (Date.now() - toldAt > 30_000) {
            toldAt = Date.now();
            const time = new Date().toLocaleTimeString(document.documentElement.lang);
            status.textContent = status.dataset.said.replace("{time}", time);
          }
        }
      } catch { /* the next tick tries again */ }
    }
    setTimeout(tick, every);
  };
  setTimeout(tick, every);
})();
