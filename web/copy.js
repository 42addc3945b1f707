// Copy buttons: <button data-copy="ID"> copies the value or text of element ID.
document.addEventListener("click", async (ev) => {
  const button = ev.target.closest("[data-copy]");
  if (!button) return;
  const el = document.getElementById(button.dataset.copy);
  const text = "value" in el && el.tagName === "INPUT" ? el.value : el.textContent;
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    // Without clipboard access (plain http on another host), select it for Ctrl+C.
    if (el.select) el.select();
    else getSelection().selectAllChildren(el);
  }
  const was = button.textContent;
  button.textContent = button.dataset.copied || "✓";
  setTimeout(() => (button.textContent = was), 1500);
});
