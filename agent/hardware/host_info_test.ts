import { assert, assertEquals } from "../../tests/assert.ts";
import { hostInfoSchema } from "../../core/protocol/host_report.ts";
import { parseCpuinfo, parseMeminfo, readHostInfo } from "./host_info.ts";
import { skipNote } from "../../tests/helpers/skip.ts";

const notLinux = Deno.build.os === "linux" ? undefined : "reads /proc, which only Linux has";

Deno.test({
  name: "host info: this machine's facts are present and plausible, none invented" +
    skipNote(notLinux),
  ignore: !!notLinux,
}, () => {
  const tmp = Deno.makeTempDirSync();
  try {
    const info = hostInfoSchema.parse(
      readHostInfo({ weightsDir: `${tmp}/weights/not-yet`, enginesDir: tmp }),
    );
    assertEquals(info.os, Deno.build.os);
    assert(info.kernel && info.kernel.length > 0);
    assert(info.cpuModel && info.cpuModel.length > 0, "cpu model");
    assert(Array.isArray(info.cpuFlags));
    assert((info.cores ?? 0) >= 1);
    assert((info.ramTotalBytes ?? 0) > 64 * 1024 * 1024, "RAM total");
    assert(info.ramAvailableBytes !== undefined && info.ramAvailableBytes <= info.ramTotalBytes!);
    assertEquals(info.disks.map((d) => d.purpose), ["weights", "engines"]);
    assertEquals(info.disks[0]?.path, `${tmp}/weights/not-yet`, "measured on its parent");
    for (const d of info.disks) assert(d.freeBytes > 0 && d.freeBytes <= (d.totalBytes ?? 0));
  } finally {
    Deno.removeSync(tmp, { recursive: true });
  }
});

Deno.test("host info: cpuinfo and meminfo parsing; unread is absent, not empty or zero", () => {
  assertEquals(
    parseCpuinfo(
      "processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Gold 6430\nflags\t\t: fpu sse4_2 avx avx2 fma " +
        "avx512f avx512bw amx_tile amx_int8 bogus\n",
    ),
    {
      cpuModel: "Intel(R) Xeon(R) Gold 6430",
      cpuFlags: ["sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "amx_tile", "amx_int8"],
    },
  );
  assertEquals(parseCpuinfo("processor : 0\nFeatures : fp asimd asimddp sve\nModel : Pi 5\n"), {
    cpuModel: "Pi 5",
    cpuFlags: ["asimd", "asimddp", "sve"],
  });
  assertEquals(parseCpuinfo("processor : 0\n"), {});
  assertEquals(
    parseMeminfo("MemTotal:       16384 kB\nMemFree: 1 kB\nMemAvailable:    8192 kB\n"),
    {
      ramTotalBytes: 16384 * 1024,
      ramAvailableBytes: 8192 * 1024,
    },
  );
  assertEquals(parseMeminfo("MemTotal: 16384 kB\n"), { ramTotalBytes: 16384 * 1024 });
  const noProc = readHostInfo({ procRoot: "/nonexistent" });
  assert(!("cpuModel" in noProc) && !("ramTotalBytes" in noProc) && !("cpuFlags" in noProc));
});
