/**
 * The sha256 of a download, computed on its own thread so that hashing (about 400-500 MiB/s
 * on one core here) runs beside the socket reads and disk writes instead of after them.
 * Bytes arrive through slots of a SharedArrayBuffer (posting typed arrays copies them slowly):
 * {init: sab, slotBytes}, then {slot, n} per filled slot (answered {free: slot}), then
 * {digest: true} → {digest}.
 */
/// <reference lib="deno.worker" />
import { createHash } from "node:crypto";

const hash = createHash("sha256");
let shared: SharedArrayBuffer | null = null;
let slotBytes = 0;
let local = new Uint8Array(0);

self.onmessage = (
  e: MessageEvent<
    { init?: SharedArrayBuffer; slotBytes?: number; slot?: number; n?: number; digest?: true }
  >,
) => {
  const m = e.data;
  if (m.init) {
    shared = m.init;
    slotBytes = m.slotBytes!;
    local = new Uint8Array(slotBytes);
  } else if (m.slot !== undefined && shared) {
    local.set(new Uint8Array(shared, m.slot * slotBytes, m.n!));
    hash.update(local.subarray(0, m.n!));
    self.postMessage({ free: m.slot });
  } else if (m.digest) {
    self.postMessage({ digest: hash.digest("hex") });
  }
};
