import { assert, assertEquals } from "../../tests/assert.ts";
import { changeContext } from "./context_change.ts";
import type { StartCommand } from "./replica.ts";
import { cpuNode, gpuNode } from "./testdata/cluster.ts";
import { model, World } from "./testdata/world.ts";

const min = 60_000;
const starts = (r: { commands: { kind: string }[] }) =>
  r.commands.filter((c) => c.kind === "start") as StartCommand[];

Deno.test("reconcile: a model lands on the node that fits; a second step issues nothing", () => {
  const w = new World(
    [gpuNode("small", [16]), gpuNode("big", [48]), cpuNode("cpu")],
    [model("m", 20)],
  );
  const r = w.step();
  assertEquals(starts(r).map((c) => [c.node, c.gpus, c.engine, c.contextLength]), [
    ["big", [0], "llamacpp", 2048],
  ]);
  assertEquals(w.step().commands, [], "idempotent while it starts");
  w.ready();
  assertEquals(w.step().commands, [], "idempotent once ready");
  assertEquals(w.step().notes, []);
});

Deno.test("reconcile: what fits nowhere is a note naming each node's constraint", () => {
  const w = new World([gpuNode("small", [16]), cpuNode("cpu")], [model("m", 20)]);
  const r = w.step();
  assertEquals(r.commands, []);
  assertEquals(r.notes.length, 1);
  const msg = r.notes[0]!.message;
  assert(msg.includes("small: (card_memory) needs 1 card(s) with 20.5 GB free"), msg);
  assert(msg.includes("cpu: (card_memory) has 0 card(s), needs 1"), msg);
});

Deno.test("reconcile: a two-card model takes two cards of one node", () => {
  const w = new World(
    [gpuNode("one", [80]), gpuNode("quad", [24, 24, 24, 24])],
    [model("big", 30, {}, { gpus: 2 })],
  );
  const [c] = starts(w.step());
  assertEquals([c!.node, c!.gpus.length], ["quad", 2]);
  assert(c!.perCardBytes < 0.9 * 24 * 1024 ** 3);
});

Deno.test("reconcile: a role-labelled node takes only its role", () => {
  const judgeNode = gpuNode("judge-box", [80], { labels: { "llmgw.role": "judge" } });
  const w = new World([judgeNode, gpuNode("plain", [24])], [
    model("chat", 30),
    model("judge", 30, {}, { node_selector: { "llmgw.role": "judge" } }),
  ]);
  const r = w.step();
  assertEquals(starts(r).map((c) => [c.model, c.node]), [["judge", "judge-box"]]);
  assert(r.notes[0]!.message.includes("judge-box: (labels) the node is for role 'judge' only"));
});

Deno.test("reconcile: on demand starts on a request, evicts after idle, never before its minimum life", () => {
  const w = new World([gpuNode("g", [24])], [model("od", 10, { on_demand: true })]);
  assertEquals(w.step().commands, [], "nothing runs until asked");
  w.demand.set("od", { waiting: 1, lastRequestAt: w.clock.now() });
  const [c] = starts(w.step());
  assertEquals(c!.model, "od");
  w.ready();
  w.live("od")[0]!.lastRequestAt = w.clock.now();
  w.demand.set("od", { waiting: 0, lastRequestAt: w.clock.now() });
  w.clock.advance(4 * min); // idle 4 min, alive 4 min
  assertEquals(w.step().commands, [], "idle, but within its minimum life");
  w.clock.advance(1 * min);
  const r = w.step();
  assertEquals(r.commands.map((x) => [x.kind, x.reason]), [["stop", "idle for 300s (on demand)"]]);
  assertEquals(w.live("od"), []);
  assertEquals(w.step().commands, [], "stays stopped without demand");
});

Deno.test("reconcile: an on-demand start makes room on a full card, the idlest first", () => {
  const w = new World([gpuNode("g", [24])], [
    model("a", 15, { on_demand: true }),
    model("b", 15, { on_demand: true }),
  ]);
  w.demand.set("a", { waiting: 1 });
  w.settle();
  w.demand.set("a", { waiting: 0 });
  w.clock.advance(1 * min);
  w.live("a")[0]!.lastRequestAt = w.clock.now();
  w.demand.set("b", { waiting: 1 });
  let r = w.step();
  assertEquals(r.commands, [], "a is within its minimum life");
  assert(
    r.notes[0]!.message.includes("held by a within its minimum life, for 240s"),
    r.notes[0]!.message,
  );
  w.clock.advance(4 * min + 30_000);
  w.live("a")[0]!.lastRequestAt = w.clock.now() - 30_000; // used 30 s ago: not idle-evictable, but evictable for room
  r = w.step();
  assertEquals(r.commands.map((x) => [x.kind, x.model, x.reason]), [
    ["stop", "a", "makes room for b (idle 30s)"],
  ]);
  const [c] = starts(w.step());
  assertEquals([c!.model, c!.node], ["b", "g"]);
});

Deno.test("reconcile: a node lost moves its replicas elsewhere", () => {
  const w = new World([gpuNode("a", [48]), gpuNode("b", [48])], [
    model("m", 10, { scaling: { min: 2, max: 2 } }),
  ]);
  w.settle();
  assertEquals(w.live("m").map((s) => s.node), ["a", "a"], "packed onto one node");
  w.nodes[0]!.state = "lost";
  const r = w.step();
  assertEquals(r.commands.map((c) => [c.kind, c.node, c.reason]), [
    ["stop", "a", "node a lost"],
    ["stop", "a", "node a lost"],
    ["start", "b", "scaling"],
    ["start", "b", "scaling"],
  ]);
  w.ready();
  assertEquals(w.step().commands, []);
});

Deno.test("reconcile: a rolling restart keeps a ready replica throughout, one at a time", () => {
  const w = new World([gpuNode("a", [24, 24]), gpuNode("b", [24, 24])], [
    model("m", 15, { scaling: { min: 2, max: 2 } }),
  ]);
  w.settle();
  const before = w.live("m").map((s) => s.id);
  const changed = changeContext(w.catalog[0]!, { tokens: 4096 }, w.snapshot());
  assert(changed.ok && changed.restart);
  w.catalog = [changed.model];
  let maxLive = 0;
  for (let i = 0; i < 20; i++) {
    const r = w.step();
    const serving = w.replicas.filter((s) => s.model === "m" && s.state === "ready");
    assert(serving.length >= 1, `step ${i}: no ready replica`);
    maxLive = Math.max(maxLive, w.live("m").length);
    // Old replicas answer their last requests while draining.
    for (const s of w.replicas) if (s.state === "draining") s.inFlight = 0;
    w.ready();
    if (!r.commands.length && !w.replicas.some((s) => s.state === "draining")) break;
  }
  const after = w.live("m");
  assertEquals(after.length, 2);
  assert(after.every((s) => !before.includes(s.id)), "both replaced");
  assertEquals(maxLive, 3, "one replacement beside the old ones at a time");
  assertEquals(w.step().commands, []);
});

Deno.test("reconcile: a draining replica waits for its requests, up to the grace", () => {
  const w = new World([gpuNode("a", [48])], [model("m", 10)]);
  w.settle();
  w.catalog = [model("m", 10, { context_length: 4096 })];
  w.step();
  w.ready();
  const r = w.step();
  const old = w.replicas.find((s) => s.state === "draining")!;
  assertEquals(r.commands.map((c) => c.kind), ["drain"]);
  old.inFlight = 2;
  assertEquals(w.step().commands, [], "still answering");
  w.clock.advance(5 * min);
  assertEquals(w.step().commands.map((c) => c.reason), ["drain grace of 300s over"]);
});

Deno.test("reconcile: a restart waits for room that another restart gives back", () => {
  const w = new World([gpuNode("a", [24, 24, 24])], [model("x", 15), model("y", 15)]);
  w.settle();
  w.catalog = [model("x", 15, { context_length: 4096 }), model("y", 15, { context_length: 4096 })];
  const r = w.step();
  assertEquals(starts(r).map((c) => c.model), ["x"], "x takes the free card");
  assertEquals(r.notes.map((n) => [n.model, n.kind]), [["y", "waiting"]]);
  assert(r.notes[0]!.message.includes("draining or restarting replicas give back"));
  w.ready();
  assertEquals(w.step().commands.map((c) => [c.kind, c.model]), [["drain", "x"]]);
  assertEquals(w.step().commands.map((c) => [c.kind, c.model]), [["stop", "x"]]);
  assertEquals(starts(w.step()).map((c) => c.model), ["y"], "y starts in the room x gave back");
  w.ready();
  w.settle();
  assertEquals(w.live().length, 2);
});

Deno.test("reconcile: max output alone restarts nothing; context is checked with figures", () => {
  const w = new World([gpuNode("a", [24])], [model("m", 15)]);
  w.settle();
  const mo = changeContext(w.catalog[0]!, { maxOutput: 512 }, w.snapshot());
  assert(mo.ok && !mo.restart);
  assertEquals(mo.model.def.maxOutput, 512);
  w.catalog = [mo.model];
  assertEquals(w.step().commands, []);
  const long = changeContext(w.catalog[0]!, { tokens: 16384 }, w.snapshot());
  assert(!long.ok);
  assertEquals(long.message, "a context of 16384 is longer than the trained context of 8192");
  const tooBig = changeContext(w.catalog[0]!, { tokens: 8192, slots: 128 }, w.snapshot());
  assert(!tooBig.ok);
  assert(tooBig.message.startsWith("a pool of 1048576 tokens (128 × 8192) needs"), tooBig.message);
  assert(tooBig.message.includes("the largest offers 21.6 GB"), tooBig.message);
  const shorter = changeContext(mo.model, { tokens: 256 }, w.snapshot());
  assert(shorter.ok && shorter.restart);
  assertEquals(shorter.model.def.maxOutput, 256, "max output never exceeds the context");
});

Deno.test("reconcile: stop, remove and scale", () => {
  const w = new World([gpuNode("a", [48, 48])], [model("m", 10, { scaling: { min: 2, max: 2 } })]);
  w.settle();
  w.catalog = [{ ...w.catalog[0]!, stopped: true }];
  const r = w.step();
  assertEquals(r.commands.map((c) => [c.kind, c.reason]), [
    ["drain", "an administrator stopped the model"],
    ["drain", "an administrator stopped the model"],
  ]);
  w.settle();
  assertEquals(w.live("m"), []);
  w.catalog = [model("m", 10, { scaling: { min: 1, max: 1 } })];
  w.settle();
  assertEquals(w.live("m").length, 1);
  w.catalog = [];
  w.settle();
  assertEquals(w.live(), []);
});

Deno.test("reconcile: a failed start backs off before trying again", () => {
  const w = new World([gpuNode("a", [48])], [model("m", 10)]);
  w.step();
  const s = w.replicas[0]!;
  s.state = "failed";
  s.reason = "engine exited with code 1";
  s.stateSince = w.clock.now();
  const r = w.step();
  assertEquals(r.commands, []);
  assertEquals(
    r.notes[0]!.message,
    "retrying in 30s after a failed start: engine exited with code 1",
  );
  w.clock.advance(30_000);
  assertEquals(starts(w.step()).length, 1);
});

Deno.test("reconcile: room a removed model gives back is waited for, not called unplaceable", () => {
  const w = new World([gpuNode("g", [24])], [model("a", 15)]);
  w.settle();
  w.catalog = [model("b", 15)];
  const r = w.step();
  assertEquals(r.commands.map((c) => [c.kind, c.model]), [["drain", "a"]]);
  assertEquals(r.notes.map((n) => [n.model, n.kind]), [["b", "waiting"]]);
  w.step(); // a drained → stopped
  assertEquals(starts(w.step()).map((c) => c.model), ["b"]);
});

Deno.test("reconcile: a stalled download fails from its last progress; the next try avoids that node", () => {
  const w = new World([gpuNode("a", [24]), gpuNode("b", [24])], [model("m", 15)]);
  const [c] = starts(w.step());
  assertEquals(c!.node, "a");
  const s = w.replicas[0]!;
  s.state = "fetching";
  s.stateSince = w.clock.now();
  w.clock.advance(15 * min);
  s.progressAt = w.clock.now(); // bytes still arriving
  w.clock.advance(15 * min);
  assertEquals(w.step().commands, [], "30 min since start, 15 since progress");
  w.clock.advance(5 * min);
  const r = w.step();
  assertEquals(r.commands.map((x) => [x.kind, x.reason]), [
    ["stop", "no progress for 1200s while fetching"],
  ]);
  assertEquals(w.replicas[0]!.state, "failed");
  assertEquals(w.step().commands, [], "backing off");
  w.clock.advance(30_000);
  assertEquals(starts(w.step()).map((x) => x.node), ["b"], "not where it just failed");
});

Deno.test("reconcile: a held model (its source not pinned yet) starts nothing and says why", () => {
  const m = model("m", 4);
  m.held = "its source hf:a/b could not be pinned: down";
  const w = new World([gpuNode("g", [24])], [m]);
  const r = w.step();
  assertEquals(r.commands, []);
  assertEquals(r.notes, [{ model: "m", kind: "waiting", message: m.held }]);
  delete m.held;
  assertEquals(w.step().commands.map((c) => c.kind), ["start"]);
});

Deno.test("reconcile: the server's own engine arguments changing restarts that engine's replicas", () => {
  const paced = (tps: string) => ({ llamacpp: [], sim: ["--tokens-per-second", tps] });
  const m = model("m", 1, {}, { engine: "sim" });
  const other = model("o", 1);
  const w = new World([gpuNode("a", [24, 24])], [
    { ...m, engineArgs: paced("50") },
    { ...other, engineArgs: paced("50") },
  ]);
  w.settle();
  const before = w.live("m").map((s) => s.id);
  const untouched = w.live("o").map((s) => s.id);
  // `llmgw up --engines-sim-tokens-per-second 5000` on a data directory that ran at 50.
  w.catalog = [{ ...m, engineArgs: paced("5000") }, { ...other, engineArgs: paced("5000") }];
  w.settle();
  assert(w.live("m").every((s) => !before.includes(s.id)), "the sim replica was replaced");
  assertEquals(w.live("o").map((s) => s.id), untouched, "another engine's replica stays");
});
