// The portal's chat: sends the conversation to /portal/chat (session cookie + CSRF header, no API
// key in the page), reads the Server-Sent Events as they arrive, and keeps the conversation in
// localStorage. Answers are rendered by markdown.js, which escapes first.
(() => {
  const config = JSON.parse(document.getElementById("chat-config").textContent);
  const W = config.words;
  const $ = (id) => document.getElementById(id);
  const log = $("chat-log");
  const status = $("chat-status");
  const form = $("chat-form");
  const input = $("chat-input");
  const model = $("chat-model");
  const send = $("chat-send");
  const stop = $("chat-stop");
  const clear = $("chat-clear");
  const storeKey = "llmgw.chat." + config.person;
  let state = { model: model.value, messages: [] };
  try {
    const saved = JSON.parse(localStorage.getItem(storeKey) || "null");
    if (saved && Array.isArray(saved.messages)) state = saved;
  } catch { /* a damaged entry starts a new conversation */ }
  if (state.model && [...model.options].some((o) => o.value === state.model)) {
    if (!new URLSearchParams(location.search).get("model")) model.value = state.model;
  }
  const save = () => localStorage.setItem(storeKey, JSON.stringify(state));
  const fill = (s, p) => s.replace(/\{(\w+)\}/g, (m, k) => (k in p ? String(p[k]) : m));

  const markdown = globalThis.llmgwMarkdown;

  function bubble(role, content) {
    const div = document.createElement("div");
    div.className = "msg " + role;
    const who = document.createElement("div");
    who.className = "who";
    who.textContent = role === "user" ? W.chat_you : W.chat_assistant;
    const body = document.createElement("div");
    body.className = "body";
    if (role === "user") body.textContent = content;
    else body.innerHTML = markdown(content);
    div.append(who, body);
    log.append(div);
    return body;
  }
  function renderAll() {
    log.textContent = "";
    for (const m of state.messages) bubble(m.role, m.content);
  }
  renderAll();

  let controller = null;
  function busy(on) {
    send.disabled = on;
    stop.disabled = !on;
    model.disabled = on;
  }

  // While the model starts, ask what it is doing (starting, fetching weights, checking them).
  async function phase(name, signal) {
    while (!signal.aborted) {
      try {
        const r = await fetch("/portal/model-state?model=" + encodeURIComponent(name), { signal });
        const s = await r.json();
        const key = s.phase === "fetching"
          ? "chat_fetching"
          : s.phase === "checking"
          ? "chat_checking"
          : s.state === "ready"
          ? "chat_waiting"
          : "chat_starting";
        if (!signal.aborted) status.textContent = W[key];
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text || controller) return;
    state.model = model.value;
    state.messages.push({ role: "user", content: text });
    input.value = "";
    save();
    bubble("user", text);
    const body = bubble("assistant", "");
    let answer = "";
    let tokens = 0;
    let usageTokens = null;
    let first = 0;
    controller = new AbortController();
    const phaseStop = new AbortController();
    busy(true);
    status.textContent = config.states[state.model] === "ready" ? W.chat_waiting : W.chat_starting;
    if (config.states[state.model] !== "ready") phase(state.model, phaseStop.signal);
    const started = performance.now();
    let drawn = false;
    const draw = () => {
      drawn = false;
      body.innerHTML = markdown(answer);
      const n = usageTokens ?? tokens;
      const secs = Math.max((performance.now() - (first || started)) / 1000, 0.001);
      status.textContent = fill(W.chat_stats, {
        tokens: n.toLocaleString(document.documentElement.lang),
        speed: (n / secs).toLocaleString(document.documentElement.lang, {
          maximumFractionDigits: 1,
        }),
      });
    };
    try {
      const res = await fetch("/portal/chat", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": config.csrf },
        body: JSON.stringify({ model: state.model, messages: state.messages }),
        signal: controller.signal,
      });
      if (!res.ok) {
        const err = await res.json().catch(() => ({}));
        throw new Error(err?.error?.message || res.statusText);
      }
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += value;
        let cut;
        while ((cut = buf.indexOf("\n\n")) >= 0) {
          const event = buf.slice(0, cut);
          buf = buf.slice(cut + 2);
          for (const line of event.split("\n")) {
            if (!line.startsWith("data:")) continue;
            const data = line.slice(5).trim();
            if (data === "[DONE]") continue;
            let chunk;
            try {
              chunk = JSON.parse(data);
            } catch {
              continue;
            }
            if (chunk.error) throw new Error(chunk.error.message);
            const delta = chunk.choices?.[0]?.delta?.content;
            if (delta) {
              if (!first) {
                first = performance.now();
                phaseStop.abort();
              }
              answer += delta;
              tokens++;
            }
            if (chunk.usage?.completion_tokens) usageTokens = chunk.usage.completion_tokens;
          }
        }
        if (!drawn) {
          drawn = true;
          requestAnimationFrame(draw);
        }
      }
      draw();
    } catch (e) {
      if (controller.signal.aborted) {
        draw();
        status.textContent = W.chat_stopped;
      } else {
        status.textContent = String(e.message || e);
        status.classList.add("error");
      }
    } finally {
      phaseStop.abort();
      if (answer) {
        state.messages.push({ role: "assistant", content: answer });
        save();
      }
      controller = null;
      busy(false);
      input.focus();
    }
  });
  stop.addEventListener("click", () => controller?.abort());
  clear.addEventListener("click", () => {
    state.messages = [];
    save();
    renderAll();
    status.textContent = "";
  });
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) form.requestSubmit();
  });
  status.classList.remove("error");
})();
