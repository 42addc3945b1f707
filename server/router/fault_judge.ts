/**
 * Whose fault a failed attempt is, so that one client's bad requests cannot open the breakers
 * every other client depends on. Engines answer some invalid requests with a 5xx (llama.cpp
 * answers `n: 2` with 500): when a second replica answers a request the same way as the first,
 * the request is at fault, no breaker is charged, and the client hears a 400 with the engine's
 * message. A breaker is charged only for what is the endpoint's own: a connect error, a timeout, a
 * broken stream, or a 5xx that another replica did not repeat (it answered, or failed otherwise).
 *
 * An engine's 5xx is held back until the next attempt says which it was; one left over when
 * there is nothing to compare it with is charged, as before.
 */
import { AppError } from "../../core/errors.ts";
import type { Replica } from "./replicas.ts";

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

  /**
   * An attempt failed on `replica`. Returns "request" when the request is proven at fault (stop
   * trying), else "retry" after charging or holding the failure.
   */
  failed(replica: Replica, attempt: FailedAttempt, model: string): "request" | "retry" {
    const message = engineMessage(attempt);
    const held = this.#held;
    this.#held = undefined;
    if (
      held && message !== undefined && held.replica !== replica &&
      held.status === attempt.status && held.message === message
    ) {
      // Two endpoints agree: neither is broken. A half-open probe taken by either goes back.
      held.replica.breaker.release();
      replica.breaker.release();
      this.#requestFault = new AppError("invalid_request", {
        detail: `the engine serving '${model}' refused it: ${message.slice(0, 500)}`,
      });
      return "request";
    }
    held?.replica.breaker.failure();
    if (message !== undefined && !replica.external) {
      this.#held = { replica, status: attempt.status, message };
    } else {
      replica.breaker.failure();
    }
    return "retry";
  }

  /** Another attempt answered, or none is left: a failure still held back was the endpoint's. */
  settle(): void {
    this.#held?.replica.breaker.failure();
    this.#held = undefined;
  }

  /** The 400 for a request two endpoints refused alike, once `failed` said so. */
  get requestFault(): AppError | undefined {
    return this.#requestFault;
  }
}
