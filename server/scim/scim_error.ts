/**
 * SCIM's error shape (RFC 7644 §3.12) for everything under /scim/v2: the same codes and HTTP
 * statuses as the rest of llmgw, with SCIM's `scimType` where the RFC names one, so an identity
 * provider's client reads why it was refused.
 */
import type { ErrorCode } from "../../core/errors.ts";

export const errorSchema = "urn:ietf:params:scim:api:messages:2.0:Error";

export function isScimPath(path: string): boolean {
  return path === "/scim/v2" || path.startsWith("/scim/v2/");
}

const scimTypes: Partial<Record<ErrorCode, string>> = {
  conflict: "uniqueness",
  invalid_request: "invalidValue",
  invalid_json: "invalidSyntax",
  scim_invalid_filter: "invalidFilter",
  scim_invalid_path: "invalidPath",
};

export function scimErrorBody(code: ErrorCode, status: number, detail: string) {
  const scimType = scimTypes[code];
  return {
    schemas: [errorSchema],
    status: String(status),
    ...(scimType ? { scimType } : {}),
    detail,
  };
}
