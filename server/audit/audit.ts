/**
 * The audit trail: who changed what, when, on which target, with the value before and after.
 * Secrets never enter it: fields that hold one are replaced by the field's name. The product
 * only appends to it; no route changes or deletes a row.
 */
import { and, desc, eq, gte, or, type SQL } from "drizzle-orm";
import { monotonicFactory } from "ulid";
import type { Clock } from "../../core/clock.ts";
import type { Store } from "../../db/store.ts";
import { audit } from "../../db/schema.ts";
import type { Actor } from "../tenancy/access.ts";

const nextId = monotonicFactory();

export type AuditRow = typeof audit.$inferSelect;

const secretField =
  /^(key|password|passwordHash|password_hash|token|tokenHash|secret|clientSecret)$/i;

/** A copy with every secret-bearing field replaced by `<secret: name>`. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map((
        [k, v],
      ) => [k, secretField.test(k) ? `<secret: ${k}>` : redact(v)]),
    );
  }
  return value;
}

export interface AuditTarget {
  kind: string;
  id: string;
  orgId: string | null;
}

export class AuditLog {
  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  async record(
    actor: Actor,
    action: string,
    target: AuditTarget,
    before: unknown,
    after: unknown,
  ): Promise<void> {
    const row: AuditRow = {
      id: nextId(this.deps.clock.now()),
      at: this.deps.clock.now(),
      actorKind: actor.kind,
      actorId: actor.id,
      actorName: actor.name,
      action,
      targetKind: target.kind,
      targetId: target.id,
      orgId: target.orgId,
      before: before === undefined ? null : redact(before),
      after: after === undefined ? null : redact(after),
    };
    await this.deps.store.write((tx) => tx.insert(audit).values(row));
  }

  async list(filter: {
    since?: number;
    actor?: string;
    target?: string;
    orgId?: string | null;
    limit?: number;
  }): Promise<AuditRow[]> {
    const where: SQL[] = [];
    if (filter.since !== undefined) where.push(gte(audit.at, filter.since));
    if (filter.actor) {
      where.push(or(eq(audit.actorId, filter.actor), eq(audit.actorName, filter.actor))!);
    }
    if (filter.target) where.push(eq(audit.targetId, filter.target));
    if (filter.orgId !== undefined) where.push(eq(audit.orgId, filter.orgId ?? ""));
    return await this.deps.store.db.select().from(audit).where(and(...where))
      .orderBy(desc(audit.id)).limit(Math.min(filter.limit ?? 200, 5000));
  }
}
