/**
 * Every rate window admission counts on, by name (`r|key:…` for requests, `t|…` for tokens):
 * one registry, so the window exchange can report and update the same windows admission reads.
 */
import { SlidingWindow, windowMs } from "./window.ts";

export class RateWindows {
  readonly #windows = new Map<string, SlidingWindow>();
  /** How many control planes counted at the last exchange; a new window starts with it. */
  planes = 1;

  /** `ms` is a minute in production; a test may shorten it. */
  constructor(readonly ms: number = windowMs) {}

  get(name: string): SlidingWindow {
    let w = this.#windows.get(name);
    if (!w) this.#windows.set(name, w = new SlidingWindow(this.ms, this.planes));
    return w;
  }

  /** The windows seen so far; names only ever join (a handful per key). */
  entries(): IterableIterator<[string, SlidingWindow]> {
    return this.#windows.entries();
  }
}
