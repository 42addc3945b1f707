/** The admin API as an OpenAPI 3.1 document, built from the route registry's zod schemas. */
import { z } from "zod";
import { VERSION as version } from "../../../core/version.ts";
import type { RouteSpec } from "./registry.ts";

const errorSchema = {
  type: "object",
  properties: {
    error: {
      type: "object",
      properties: {
        message: { type: "string" },
        type: { type: "string" },
        param: { type: ["string", "null"] },
        code: { type: "string" },
        request_id: { type: "string" },
      },
      required: ["message", "type", "code"],
    },
  },
};

export function openApiDocument(specs: RouteSpec[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const s of specs) {
    const path = `/api/v1${s.path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}")}`;
    const params = [...s.path.matchAll(/:(\w+)/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    const query = s.query
      ? Object.entries(s.query.shape).map(([name, schema]) => ({
        name,
        in: "query",
        required: !(schema as z.ZodType).safeParse(undefined).success,
        schema: z.toJSONSchema(schema as z.ZodType, { io: "input", unrepresentable: "any" }),
      }))
      : [];
    (paths[path] ??= {})[s.method] = {
      summary: s.summary,
      description: `Who may call it: ${s.access}.`,
      tags: [s.tag],
      ...(params.length + query.length > 0 ? { parameters: [...params, ...query] } : {}),
      ...(s.body
        ? {
          requestBody: {
            required: true,
            content: {
              "application/json": {
                schema: z.toJSONSchema(s.body, { io: "input", unrepresentable: "any" }),
              },
            },
          },
        }
        : {}),
      responses: {
        [String(s.status ?? 200)]: { description: "Done", content: { "application/json": {} } },
        default: {
          description: "An error in OpenAI's envelope",
          content: { "application/json": { schema: errorSchema } },
        },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "llmgw admin API", version },
    components: {
      securitySchemes: {
        adminToken: { type: "http", scheme: "bearer", description: "llmgw_adm_… admin token" },
        apiKey: {
          type: "http",
          scheme: "bearer",
          description: "a person's own sk-llmgw-… key: read-only",
        },
        session: { type: "apiKey", in: "cookie", name: "llmgw_session" },
      },
    },
    security: [{ adminToken: [] }, { session: [] }, { apiKey: [] }],
    paths,
  };
}
