import { assertEquals } from "../../tests/assert.ts";
import { FakeClock } from "../../core/clock.ts";
import { openStore } from "../../db/store.ts";
import { SignInFlows } from "./sign_in_flows.ts";

Deno.test("a sign-in flow begun on one control plane is taken once on another, and not after its time", async () => {
  const dir = await Deno.makeTempDir();
  const a = await openStore(`${dir}/llmgw.db`);
  const b = await openStore(`${dir}/llmgw.db`);
  const clock = new FakeClock();
  try {
    const onA = new SignInFlows({ store: a, clock });
    const onB = new SignInFlows({ store: b, clock });
    await onA.put("state-1", { verifier: "v1", nonce: "n1" }, 60_000);
    assertEquals(await onB.take("state-1"), { verifier: "v1", nonce: "n1" });
    assertEquals(await onA.take("state-1"), undefined, "a state is used once");

    await onA.put("state-2", { verifier: "v2", nonce: "n2" }, 60_000);
    clock.advance(60_000);
    assertEquals(await onB.take("state-2"), undefined, "expired");
    assertEquals(await onB.take("never-begun"), undefined);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
});
