/**
 * How the access log learns when a relayed answer ended and how many bytes it was, without
 * wrapping the body in a stream of its own: that extra stage cost every streamed token a second
 * pass through the runtime's stream machinery, and turned a plain JSON answer (which the server
 * writes in one go) into a stream. A handler that sends what it relayed claims the meter and
 * reports the end; for every other answer the access log counts the body itself.
 */
export class AnswerMeter {
  #claimed = false;
  readonly #ended = Promise.withResolvers<number>();

  /** The handler will call `end` with the bytes the client was sent. */
  claim(): void {
    this.#claimed = true;
  }

  get claimed(): boolean {
    return this.#claimed;
  }

  end(bytesOut: number): void {
    this.#ended.resolve(bytesOut);
  }

  get ended(): Promise<number> {
    return this.#ended.promise;
  }
}
