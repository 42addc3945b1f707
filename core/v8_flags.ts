/**
 * The V8 flags every llmgw process runs with: the `up` and `server` tasks, the npm `llmgw` script,
 * the compiled binary (deploy/compile.sh bakes them in) and the processes llmgw starts itself.
 *
 * Why: a stream lives for seconds, so what it allocates outlives young-generation collections and
 * is promoted; by default V8 then lets the old generation grow to several times what is live
 * before collecting it. With 512 streams open the gateway held about 45 MB of live objects in a
 * 150 MB heap, 310 MB resident. A smaller young generation (8 MB semi-spaces, half the default)
 * and old-generation growth of 10% between collections keep it at about 190 MB for about 5%
 * more CPU (`llmgw bench overhead`, docs/performance.md).
 *
 * `--enable-experimental-regexp-engine-on-excessive-backtracks`: a regular expression that
 * backtracks too much is run again on V8's non-backtracking engine, in linear time, so no
 * guardrail deny pattern (server/guard/patterns.ts) can stall a request. Running them all on that
 * engine (the `l` flag) would cost about 15 times as much CPU on every request.
 */
// One line: deploy/compile.sh reads the value with sed.
// deno-fmt-ignore
export const v8Flags = "--max-semi-space-size=8,--heap-growing-percent=10,--enable-experimental-regexp-engine-on-excessive-backtracks";
