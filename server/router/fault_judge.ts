/**
 * Whose fault a failed attempt is, so that one client's bad requests cannot open the breakers
 * every other client depends on. Engines answer some invalid requests with a 5xx (llama.cpp
 * answers `n: 2` with 500): when a second replica answers a request the same way as the first,
 * or the engine's text is one its quirk table knows as a refusal (engine_quirks.ts), the request
 * is at fault, no breaker is charged, and the client hears a 400 with the engine's message.
 *
 * A breaker is charged only for what is the endpoint's own: a connect error, a timeout, a broken
 * stream, or a 5xx that another replica did not repeat. An engine's 5xx is held back until the
 * next attempt says which it was; one left over with nothing to compare it with is charged only
 * while another replica of the model could still take requests: the last routable replica is
 * never ejected for a 5xx (Envoy's panic threshold), since ejecting it takes the model from
 * every client, and a key that keeps causing 5xx is slowed instead (key_backoff.ts).
 */
import { AppError } from "../../core/errors.ts";
import type { Replica, ReplicaTable } from "./replicas.ts";

export interface FailedAttempt {
  status: number;
  detail: string;
  answer?: { text: string; contentType: string };
}

/** The engine's own message in an error answer: OpenAI's `error.message`, else the text. */
function engineMessage(a: FailedAttempt): string | undefined {
  if (!a.answer || a.status < 500) return undefined;
  try {
    const body = JSON.parse(a.answer.text);
    const m = body?.error?.message ?? body?.message ?? body?.error;
    if (typeof m === "string" && m) return m;
  } catch {
    // not JSON: the text itself is the message
  }
  return a.answer.text.trim() || undefined;
}

export class FaultJudge {
  #held: { replica: Replica; status: number; message: string } | undefined;
  #requestFault: AppError | undefined;
  #engineAnswered5xx = false;
  #anyCharged = false;

  constructor(private readonly table: Pick<ReplicaTable, "forModel">) {}

  /**
   * An attempt failed on `replica`. Returns "request" when the request is proven at fault (stop
   * trying), else "retry" after charging or holding the failure. `refusals` are the texts the
   * serving engine is known to refuse a request with.
   */
  failed(
    replica: Replica,
    attempt: FailedAttempt,
    model: string,
    refusals: readonly RegExp[] = [],
  ): "request" | "retry" {
    const message = engineMessage(attempt);
    const held = this.#held;
    this.#held = undefined;
    if (message !== undefined && !replica.external) this.#engineAnswered5xx = true;
    const agreed = held && message !== undefined && held.replica !== replica &&
      held.status === attempt.status && held.message === message;
    const known = message !== undefined && !replica.external &&
      refusals.some((re) => re.test(message));
    if (agreed || known) {
      // Two endpoints agree, or the engine said it refused: neither is broken. A half-open
      // probe taken by either goes back.
      held?.replica.breaker.release();
      replica.breaker.release();
      this.#requestFault = new AppError("invalid_request", {
        detail: `the engine serving '${model}' refused it: ${message!.slice(0, 500)}`,
      });
      return "request";
    }
    if (held) this.#charge(held.replica);
    if (message !== undefined && !replica.external) {
      this.#held = { replica, status: attempt.status, message };
    } else {
      replica.breaker.failure();
    }
    return "retry";
  }

  /**
   * Another attempt answered (`answered`), or none is left: a failure still held back was the
   * endpoint's when another replica answered, else it is charged only if it ejects no last one.
   */
  settle(answered: boolean): void {
    const held = this.#held;
    this.#held = undefined;
    if (!held) return;
    if (answered) held.replica.breaker.failure();
    else this.#charge(held.replica);
  }

  /** The 400 for a request two endpoints refused alike, once `failed` said so. */
  get requestFault(): AppError | undefined {
    return this.#requestFault;
  }

  /**
   * The request was answered by an engine with a 5xx that opened no breaker: the key that sent
   * it is the one to slow if it keeps doing so.
   */
  get keyAtFault(): boolean {
    return this.#engineAnswered5xx && (this.#requestFault !== undefined || !this.#anyCharged);
  }

  /** A 5xx charged to a breaker, unless no other replica of the model could take requests. */
  #charge(replica: Replica): void {
    const others = this.table.forModel(replica.model).some((r) =>
      r !== replica && r.state === "ready" && r.breaker.available()
    );
    if (others) {
      this.#anyCharged = true;
      replica.breaker.failure();
    } else {
      replica.breaker.release();
    }
  }
}
