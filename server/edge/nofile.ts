/**
 * The open-file limit. Every client connection holds a descriptor, and a unit's default soft limit
 * (1,024) is far below what its hard limit allows, so at start the soft limit is raised to the
 * hard one. Deno has no API for it: libc's `setrlimit` is called through `Deno.dlopen`.
 */

/** RLIMIT_NOFILE's number, which differs between kernels. */
const rlimitNofile: Partial<Record<typeof Deno.build.os, number>> = {
  linux: 7,
  darwin: 8,
  freebsd: 8,
};

const libcNames: Partial<Record<typeof Deno.build.os, string[]>> = {
  linux: ["libc.so.6", "libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"],
  darwin: ["libSystem.dylib"],
  freebsd: ["libc.so.7"],
};

export interface NofileLimit {
  /** The soft limit now in force. */
  soft: number;
  hard: number;
  /** The soft limit found at start, when it was raised. */
  raisedFrom?: number;
}

/** Raises the soft limit to the hard limit; undefined where libc cannot be reached. */
export function raiseNofileLimit(): NofileLimit | undefined {
  const resource = rlimitNofile[Deno.build.os];
  if (resource === undefined) return undefined;
  const lib = openLibc();
  if (!lib) return undefined;
  try {
    const limit = new BigUint64Array(2);
    const bytes = new Uint8Array(limit.buffer);
    if (lib.symbols.getrlimit(resource, bytes) !== 0) return undefined;
    const [soft, hard] = [limit[0]!, limit[1]!];
    // An unlimited hard limit (RLIM_INFINITY) is not a value the kernel takes for the soft one
    // (Linux caps it at nr_open): 1,048,576 is its default ceiling.
    const target = hard > 1_048_576n ? 1_048_576n : hard;
    if (soft >= target) return { soft: Number(soft), hard: Number(hard) };
    limit[0] = target;
    if (lib.symbols.setrlimit(resource, bytes) !== 0) {
      return { soft: Number(soft), hard: Number(hard) };
    }
    return { soft: Number(target), hard: Number(hard), raisedFrom: Number(soft) };
  } finally {
    lib.close();
  }
}

function openLibc() {
  for (const name of libcNames[Deno.build.os] ?? []) {
    try {
      return Deno.dlopen(name, {
        getrlimit: { parameters: ["i32", "buffer"], result: "i32" },
        setrlimit: { parameters: ["i32", "buffer"], result: "i32" },
      });
    } catch {
      // Not this name; try the next.
    }
  }
  return undefined;
}
