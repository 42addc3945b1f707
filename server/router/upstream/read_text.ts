/** The rest of a body, read piece by piece (each valid until the next read), as text. */
export async function readText(read: () => Promise<Uint8Array | null>): Promise<string> {
  const decoder = new TextDecoder();
  let out = "";
  for (let piece = await read(); piece; piece = await read()) {
    out += decoder.decode(piece, { stream: true });
  }
  return out + decoder.decode();
}
