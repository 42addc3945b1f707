import { assertEquals } from "../../tests/assert.ts";
import { hideSecrets } from "./pages/model_page.tsx";
import { linePath } from "./line_chart.tsx";

Deno.test("model page: secret-looking flags keep their name, not their value", () => {
  assertEquals(
    hideSecrets(["-c", "4096", "--api-key", "sk-1", "--hf-token=hf_x", "--alias", "m"]),
    ["-c", "4096", "--api-key", "••••", "--hf-token=••••", "--alias", "m"],
  );
});

Deno.test("line chart: points scaled into the box, a gap where samples are missing", () => {
  const d = linePath(
    [{ at: 0, value: 0 }, { at: 10_000, value: 50 }, { at: 60_000, value: 100 }, {
      at: 70_000,
      value: null,
    }],
    0,
    100_000,
    100,
  );
  assertEquals(d, "M0.0,77.0L30.0,40.0M180.0,3.0");
});
