/**
 * sha256 fed in order, either here (small files: no thread to start) or on a worker thread
 * (large files: hashing overlaps the transfer). The worker's queue is bounded, so a slow hash
 * slows the download rather than filling memory.
 */
import { createHash } from "node:crypto";

export interface StreamHasher {
  /** The bytes may be reused as soon as the returned promise resolves. */
  update(data: Uint8Array): Promise<void>;
  digest(): Promise<string>;
  /** Lets go of the thread, if any; safe to call more than once. */
  dispose(): void;
}

export function inlineHasher(): StreamHasher {
  const h = createHash("sha256");
  return {
    update(data) {
      h.update(data);
      return Promise.resolve();
    },
    digest: () => Promise.resolve(h.digest("hex")),
    dispose: () => {},
  };
}

const slots = 16;
const slotBytes = 1024 * 1024;

export function workerHasher(): StreamHasher {
  const worker = new Worker(new URL("./hash_worker.ts", import.meta.url).href, { type: "module" });
  const sab = new SharedArrayBuffer(slots * slotBytes);
  worker.postMessage({ init: sab, slotBytes });
  const free = Array.from({ length: slots }, (_, i) => i);
  let failure: Error | null = null;
  let slotFreed: PromiseWithResolvers<void> | null = null;
  let result: PromiseWithResolvers<string> | null = null;
  worker.onmessage = (e: MessageEvent<{ free?: number; digest?: string }>) => {
    if (e.data.free !== undefined) {
      free.push(e.data.free);
      slotFreed?.resolve();
    } else if (e.data.digest !== undefined) {
      result?.resolve(e.data.digest);
      worker.terminate();
    }
  };
  const fail = (err: Error) => {
    failure ??= err;
    slotFreed?.reject(failure);
    result?.reject(failure);
    worker.terminate();
  };
  worker.onerror = (e) => {
    e.preventDefault();
    fail(new Error(`the hashing thread failed: ${e.message}`));
  };
  return {
    async update(data) {
      for (let off = 0; off < data.byteLength; off += slotBytes) {
        // When every slot is being hashed, the download waits: memory stays bounded.
        while (free.length === 0) {
          if (failure) throw failure;
          slotFreed = Promise.withResolvers<void>();
          await slotFreed.promise;
          slotFreed = null;
        }
        if (failure) throw failure;
        const slot = free.shift()!;
        const n = Math.min(slotBytes, data.byteLength - off);
        new Uint8Array(sab, slot * slotBytes, n).set(data.subarray(off, off + n));
        worker.postMessage({ slot, n });
      }
    },
    digest() {
      if (failure) return Promise.reject(failure);
      result = Promise.withResolvers<string>();
      worker.postMessage({ digest: true });
      return result.promise;
    },
    dispose() {
      fail(new Error("the hasher was disposed"));
    },
  };
}
