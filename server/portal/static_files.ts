/**
 * The portal's static files (stylesheet, small scripts), read once from web/ through
 * import.meta.url, so a compiled executable (deploy/compile.sh embeds web/) serves them too.
 */
const files: Record<string, string> = {
  "portal.css": "text/css; charset=utf-8",
  "chat.js": "text/javascript; charset=utf-8",
  "live.js": "text/javascript; charset=utf-8",
  "copy.js": "text/javascript; charset=utf-8",
  "markdown.js": "text/javascript; charset=utf-8",
  "engine_log.js": "text/javascript; charset=utf-8",
};

export function loadStatic(): Map<string, { type: string; body: string }> {
  const out = new Map<string, { type: string; body: string }>();
  for (const [name, type] of Object.entries(files)) {
    const body = Deno.readTextFileSync(new URL(`../../web/${name}`, import.meta.url));
    out.set(name, { type, body });
  }
  return out;
}
