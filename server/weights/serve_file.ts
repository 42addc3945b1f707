/**
 * A file over HTTP with a single `Range` (what a node asks for when it resumes a cut transfer):
 * 200 for the whole file, 206 for `bytes=a-b`, `bytes=a-` or `bytes=-n`, 416 for a range past
 * the end. The body streams from disk; nothing is read into memory.
 */
export async function serveFile(req: Request, path: string): Promise<Response> {
  const size = (await Deno.stat(path)).size;
  const base: Record<string, string> = {
    "accept-ranges": "bytes",
    "content-type": "application/octet-stream",
    "cache-control": "private, immutable",
  };
  const header = req.headers.get("range");
  let start = 0;
  let end = size - 1;
  let partial = false;
  if (header) {
    const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
    const unsatisfiable = () =>
      new Response(null, { status: 416, headers: { ...base, "content-range": `bytes */${size}` } });
    if (!m || (m[1] === "" && m[2] === "")) return unsatisfiable();
    if (m[1] === "") {
      start = Math.max(0, size - Number(m[2]));
    } else {
      start = Number(m[1]);
      if (m[2] !== "") end = Math.min(end, Number(m[2]));
    }
    if (start >= size || start > end) return unsatisfiable();
    partial = true;
  }
  const length = Math.max(0, end - start + 1);
  const headers: Record<string, string> = { ...base, "content-length": String(length) };
  if (partial) headers["content-range"] = `bytes ${start}-${end}/${size}`;
  const status = partial ? 206 : 200;
  if (req.method === "HEAD") return new Response(null, { status, headers });
  const file = await Deno.open(path, { read: true });
  await file.seek(start, Deno.SeekMode.Start);
  return new Response(limited(file, length), { status, headers });
}

function limited(file: Deno.FsFile, length: number): ReadableStream<Uint8Array> {
  let left = length;
  const buf = new Uint8Array(1024 * 1024);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (left <= 0) {
        file.close();
        return controller.close();
      }
      const n = await file.read(buf.subarray(0, Math.min(buf.length, left)));
      if (n === null) {
        file.close();
        return controller.error(new Error("the file ended early"));
      }
      left -= n;
      controller.enqueue(buf.slice(0, n));
    },
    cancel() {
      file.close();
    },
  });
}
