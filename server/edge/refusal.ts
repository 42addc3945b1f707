/**
 * How the edge ends a connection it refuses or closes on a client still sending: the answer, then
 * a lingering close.
 */
import type { ConnBuffer } from "./conn_buffer.ts";
import type { BadRequest } from "./request_head.ts";
import { reasonPhrase } from "./response_writer.ts";

/** A request that cannot be read gets its status and the connection closes; false: the client is gone. */
export async function refuse(io: ConnBuffer, e: BadRequest): Promise<boolean> {
  const text = `${e.message}\n`;
  const head = `HTTP/1.1 ${e.status} ${reasonPhrase(e.status)}\r\ncontent-type: text/plain\r\n` +
    `content-length: ${text.length}\r\nconnection: close\r\n\r\n${text}`;
  try {
    await io.write(new TextEncoder().encode(head));
    return true;
  } catch {
    return false;
  }
}

/**
 * Bytes unread when a socket closes make the kernel reset the connection, and off loopback a reset
 * can overtake the answer still in flight: the client sees the reset, not the 400 or 413. So the
 * write side is shut first (the client reads the answer, then its end) and what the client still
 * sends is read and dropped, for a moment and a few hundred KiB at most, before the close.
 */
const lingerMs = 1_000;
const lingerBytes = 256 * 1024;

export async function linger(io: ConnBuffer): Promise<void> {
  try {
    await io.conn.closeWrite();
  } catch {
    return;
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeUp = new Promise<null>((r) => (timer = setTimeout(() => r(null), lingerMs)));
  try {
    for (let drained = 0; drained < lingerBytes;) {
      drained += io.buffered;
      io.consume(io.buffered);
      // Left pending when time is up: the close that follows fails it.
      const read = io.fill();
      read.catch(() => {});
      if ((await Promise.race([read, timeUp])) === null) return;
    }
  } catch {
    // The client is gone.
  } finally {
    clearTimeout(timer);
  }
}
