// The portal's chat: sends the conversation to /portal/chat (session cookie + CSRF header, no API
// key in the page), reads the Server-Sent Events as they arrive, and keeps every conversation in
// localStorage, listed beside the chat. Answers are rendered by markdown.js, which escapes first;
// each code block gets a copy button. Regenerate asks again for the last answer; edit puts a
// message of yours back in the box and drops what came after it.
(() => {
  const config = JSON.parse(document.getElementById("chat-config").textContent);
  const W = config.words;
  const $ = (id) => document.getElementById(id);
  const log = $("chat-log");
  const status = $("chat-status");
  const form = $("chat-form");
  const input = $("chat-input");
  const model = $("chat-model");
  const desc = $("chat-model-desc");
  const system = $("chat-system");
  const temperature = $("chat-temperature");
  const maxTokens = $("chat-max-tokens");
  const pictures = $("chat-pictures");
  const image = $("chat-image");
  const imageCount = $("chat-image-count");
  const send = $("chat-send");
  const stop = $("chat-stop");
  const list = $("chat-list");
  const storeKey = "llmgw.chat." + config.person;
  const lang = document.documentElement.lang;
  const fill = (s, p) => s.replace(/\{(\w+)\}/g, (m, k) => (k in p ? String(p[k]) : m));
  const markdown = globalThis.llmgwMarkdown;
  const newId = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 7);
  const blank = () => ({
    id: newId(),
    title: "",
    model: model.value,
    system: "",
    temperature: null,
    maxTokens: null,
    messages: [],
    updated: Date.now(),
  });

  // ---- what is kept ----
  let store = { current: null, conversations: [] };
  try {
    const saved = JSON.parse(localStorage.getItem(storeKey) || "null");
    if (saved && Array.isArray(saved.conversations)) store = saved;
    else if (saved && Array.isArray(saved.messages)) {
      // The one-conversation form kept before lists existed.
      store.conversations = [{
        ...blank(),
        model: saved.model || model.value,
        messages: saved.messages,
      }];
    }
  } catch { /* a damaged entry starts afresh */ }
  if (!store.conversations.length) store.conversations.push(blank());
  let convo = store.conversations.find((c) => c.id === store.current) || store.conversations[0];
  const save = () => {
    store.current = convo.id;
    convo.updated = Date.now();
    try {
      localStorage.setItem(storeKey, JSON.stringify(store));
    } catch { /* full (pictures are large): the page still works, the rest is kept */ }
  };
  const titleOf = (c) => c.title || W.chat_untitled;

  // ---- drawing ----
  const textOf = (content) =>
    typeof content === "string"
      ? content
      : content.filter((p) => p.type === "text").map((p) => p.text).join("\n");
  const imagesOf = (content) =>
    typeof content === "string"
      ? []
      : content.filter((p) => p.type === "image_url").map((p) => p.image_url.url);

  function copyButtons(body) {
    for (const pre of body.querySelectorAll("pre")) {
      if (pre.querySelector("button.copy-code")) continue;
      const b = document.createElement("button");
      b.type = "button";
      b.className = "copy-code secondary";
      b.textContent = W.chat_copy;
      b.setAttribute("aria-label", W.chat_copy_code);
      b.addEventListener("click", async () => {
        try {
          await navigator.clipboard.writeText(pre.querySelector("code").textContent);
        } catch {
          getSelection().selectAllChildren(pre.querySelector("code"));
        }
        b.textContent = W.chat_copied;
        setTimeout(() => (b.textContent = W.chat_copy), 1500);
      });
      pre.prepend(b);
    }
  }

  function action(label, fn) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "link";
    b.textContent = label;
    b.addEventListener("click", fn);
    return b;
  }

  function bubble(role, content, index) {
    const div = document.createElement("div");
    div.className = "msg " + role;
    const who = document.createElement("div");
    who.className = "who";
    who.textContent = role === "user" ? W.chat_you : W.chat_assistant;
    const body = document.createElement("div");
    body.className = "body";
    if (role === "user") {
      body.textContent = textOf(content);
      for (const url of imagesOf(content)) {
        const img = document.createElement("img");
        img.src = url;
        img.alt = "";
        img.className = "pic";
        body.append(img);
      }
    } else {
      body.innerHTML = markdown(textOf(content));
      copyButtons(body);
    }
    const tools = document.createElement("div");
    tools.className = "tools";
    if (index !== undefined) {
      if (role === "user") tools.append(action(W.chat_edit, () => edit(index)));
      if (role === "assistant" && index === convo.messages.length - 1) {
        tools.append(action(W.chat_regenerate, regenerate));
      }
    }
    div.append(who, body, tools);
    log.append(div);
    return body;
  }

  function drawList() {
    list.textContent = "";
    const sorted = [...store.conversations].sort((a, b) => b.updated - a.updated);
    for (const c of sorted) {
      const li = document.createElement("li");
      if (c.id === convo.id) li.className = "current";
      const open = action(titleOf(c), () => {
        if (busyNow) return;
        convo = c;
        save();
        drawAll();
      });
      open.setAttribute("aria-label", fill(W.chat_open_named, { name: titleOf(c) }));
      if (c.id === convo.id) open.setAttribute("aria-current", "true");
      const del = action("×", () => {
        if (busyNow) return;
        store.conversations = store.conversations.filter((x) => x !== c);
        if (!store.conversations.length) store.conversations.push(blank());
        if (c === convo) convo = store.conversations[0];
        save();
        drawAll();
      });
      del.setAttribute("aria-label", fill(W.chat_delete_named, { name: titleOf(c) }));
      del.classList.add("delete");
      li.append(open, del);
      list.append(li);
    }
  }

  function drawSettings() {
    if ([...model.options].some((o) => o.value === convo.model)) {
      if (!new URLSearchParams(location.search).get("model") || convo.messages.length) {
        model.value = convo.model;
      }
    }
    system.value = convo.system || "";
    temperature.value = convo.temperature ?? "";
    maxTokens.value = convo.maxTokens ?? "";
    drawModel();
  }

  function drawModel() {
    const m = config.models[model.value] || {};
    desc.textContent = m.description || "";
    pictures.hidden = !m.vision;
  }

  function drawAll() {
    log.textContent = "";
    convo.messages.forEach((m, i) => bubble(m.role, m.content, i));
    drawList();
    drawSettings();
    status.textContent = "";
    status.classList.remove("error");
  }
  drawAll();

  // ---- settings of the conversation ----
  model.addEventListener("change", () => {
    convo.model = model.value;
    drawModel();
    save();
  });
  system.addEventListener("change", () => {
    convo.system = system.value;
    save();
  });
  const numberOf = (el) => (el.value.trim() === "" ? null : Number(el.value));
  temperature.addEventListener("change", () => {
    convo.temperature = numberOf(temperature);
    save();
  });
  maxTokens.addEventListener("change", () => {
    convo.maxTokens = numberOf(maxTokens);
    save();
  });
  image.addEventListener("change", () => {
    imageCount.textContent = image.files.length
      ? fill(W.chat_pictures_count, { n: image.files.length.toLocaleString(lang) })
      : "";
  });

  // ---- asking ----
  let controller = null;
  let busyNow = false;
  function busy(on) {
    busyNow = on;
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

  const readFile = (f) =>
    new Promise((resolve, reject) => {
      const r = new FileReader();
      r.onload = () => resolve(r.result);
      r.onerror = () => reject(r.error);
      r.readAsDataURL(f);
    });

  /** Streams an answer to the conversation as it stands, appending it when it comes. */
  async function ask() {
    const name = convo.model;
    const body = bubble("assistant", "");
    let answer = "";
    let tokens = 0;
    let usageTokens = null;
    let first = 0;
    controller = new AbortController();
    const phaseStop = new AbortController();
    busy(true);
    status.classList.remove("error");
    const state = config.models[name]?.state;
    status.textContent = state === "ready" ? W.chat_waiting : W.chat_starting;
    if (state !== "ready") phase(name, phaseStop.signal);
    const started = performance.now();
    let frame = 0;
    const draw = () => {
      frame = 0;
      body.innerHTML = markdown(answer);
      copyButtons(body);
      const n = usageTokens ?? tokens;
      const secs = Math.max((performance.now() - (first || started)) / 1000, 0.001);
      status.textContent = fill(W.chat_stats, {
        tokens: n.toLocaleString(lang),
        speed: (n / secs).toLocaleString(lang, { maximumFractionDigits: 1 }),
      });
    };
    const messages = [
      ...(convo.system.trim() ? [{ role: "system", content: convo.system.trim() }] : []),
      ...convo.messages,
    ];
    try {
      const res = await fetch("/portal/chat", {
        method: "POST",
        headers: { "content-type": "application/json", "x-csrf-token": config.csrf },
        body: JSON.stringify({
          model: name,
          messages,
          ...(convo.temperature !== null && convo.temperature !== undefined
            ? { temperature: convo.temperature }
            : {}),
          ...(convo.maxTokens ? { max_tokens: convo.maxTokens } : {}),
        }),
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
        // A timer, not requestAnimationFrame: a page the browser does not paint (hidden,
        // headless, busy) would otherwise show nothing until the answer ends.
        if (!frame) frame = setTimeout(draw, 16);
      }
      clearTimeout(frame);
      draw();
    } catch (e) {
      // A frame still to come would write the counts over what is said here.
      clearTimeout(frame);
      if (controller.signal.aborted) {
        draw();
        status.textContent = W.chat_stopped;
      } else {
        status.textContent = String(e.message || e);
        status.classList.add("error");
      }
    } finally {
      phaseStop.abort();
      if (answer) convo.messages.push({ role: "assistant", content: answer });
      save();
      controller = null;
      busy(false);
      const kept = status.textContent;
      const wasError = status.classList.contains("error");
      drawAll();
      status.textContent = kept;
      if (wasError) status.classList.add("error");
      input.focus();
    }
  }

  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text || controller) return;
    convo.model = model.value;
    const files = pictures.hidden ? [] : [...image.files];
    const urls = await Promise.all(files.map(readFile));
    const content = urls.length
      ? [{ type: "text", text }, ...urls.map((url) => ({ type: "image_url", image_url: { url } }))]
      : text;
    if (!convo.title) convo.title = text.slice(0, 60);
    convo.messages.push({ role: "user", content });
    input.value = "";
    image.value = "";
    imageCount.textContent = "";
    save();
    bubble("user", content, convo.messages.length - 1);
    drawList();
    await ask();
  });

  function regenerate() {
    if (controller) return;
    if (convo.messages[convo.messages.length - 1]?.role === "assistant") convo.messages.pop();
    save();
    drawAll();
    ask();
  }

  function edit(index) {
    if (controller) return;
    input.value = textOf(convo.messages[index].content);
    convo.messages = convo.messages.slice(0, index);
    save();
    drawAll();
    input.focus();
  }

  stop.addEventListener("click", () => controller?.abort());
  $("chat-clear").addEventListener("click", () => {
    if (controller) return;
    convo.messages = [];
    convo.title = "";
    save();
    drawAll();
  });
  $("chat-new").addEventListener("click", () => {
    if (controller) return;
    if (convo.messages.length) {
      convo = blank();
      store.conversations.push(convo);
    }
    save();
    drawAll();
    input.focus();
  });
  $("chat-export").addEventListener("click", () => {
    const blob = new Blob([JSON.stringify(store.conversations, null, 2)], {
      type: "application/json",
    });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = "llmgw-conversations.json";
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  });
  input.addEventListener("keydown", (ev) => {
    if (ev.key === "Enter" && (ev.ctrlKey || ev.metaKey)) form.requestSubmit();
  });
})();
