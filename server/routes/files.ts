/** OpenAI's Files API at /v1/files: upload (multipart), list, retrieve, content, delete. */
import { Hono } from "hono";
import type { AppEnv } from "../app_env.ts";
import type { KeyService } from "../keys/keys.ts";
import { AppError } from "../../core/errors.ts";
import { type FilePurpose, filePurposes, type FileStore } from "../files/file_store.ts";
import { requireApiKey } from "./require_api_key.ts";
import { listPage, pageLimit } from "./list_page.ts";

/** What a multipart envelope adds around the file itself, at most. */
const envelopeBytes = 64 * 1024;
/** What clients may upload as; batch_output is the gateway's own. */
const uploadPurposes = filePurposes.filter((p) => p !== "batch_output");

export function filesRoutes(deps: {
  keys: Pick<KeyService, "check">;
  files: FileStore;
  limits: { readonly filesMaxBytes: number };
}): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use("/files", requireApiKey(deps));
  app.use("/files/*", requireApiKey(deps));

  app.post("/files", async (c) => {
    const length = Number(c.req.header("content-length") ?? 0);
    if (length > deps.limits.filesMaxBytes + envelopeBytes) {
      throw new AppError("body_too_large", { limit: deps.limits.filesMaxBytes }, "file");
    }
    let form: FormData;
    try {
      form = await c.req.raw.formData();
    } catch {
      throw invalid("file", "the upload must be multipart/form-data with a 'file' and a 'purpose'");
    }
    const file = form.get("file");
    if (!(file instanceof File)) throw invalid("file", "'file' must be a file");
    const purpose = String(form.get("purpose") ?? "");
    if (!(uploadPurposes as readonly string[]).includes(purpose)) {
      throw invalid("purpose", `'purpose' must be one of ${uploadPurposes.join(", ")}`);
    }
    const key = c.get("apiKey");
    const created = await deps.files.create({ keyId: key.id, projectId: key.projectId }, {
      purpose: purpose as FilePurpose,
      filename: file.name || "upload",
      bytes: new Uint8Array(await file.arrayBuffer()),
      ...expiry(form),
    });
    return c.json(created);
  });

  app.get("/files", async (c) => {
    const purpose = c.req.query("purpose");
    const limit = pageLimit(c.req.query("limit"), 100, 10_000);
    const data = await deps.files.list(c.get("apiKey").id, {
      limit,
      ...(purpose ? { purpose } : {}),
    });
    return c.json(listPage(data, data.length === limit));
  });

  app.get(
    "/files/:id",
    async (c) => c.json(await deps.files.get(c.get("apiKey").id, c.req.param("id"))),
  );

  app.get("/files/:id/content", async (c) => {
    const bytes = await deps.files.content(c.get("apiKey").id, c.req.param("id"));
    return new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: { "content-type": "application/octet-stream" },
    });
  });

  app.delete("/files/:id", async (c) => {
    const id = c.req.param("id");
    await deps.files.delete(c.get("apiKey").id, id);
    return c.json({ id, object: "file", deleted: true });
  });
  return app;
}

/** OpenAI's `expires_after[anchor]=created_at` and `expires_after[seconds]`. */
function expiry(form: FormData): { expiresAfterS?: number } {
  const seconds = form.get("expires_after[seconds]");
  if (seconds === null) return {};
  const s = Number(seconds);
  if (!Number.isInteger(s) || s < 3600 || s > 30 * 86_400) {
    throw invalid("expires_after.seconds", "'expires_after[seconds]' must be 3600 to 2592000");
  }
  return { expiresAfterS: s };
}

function invalid(param: string, detail: string): AppError {
  return new AppError("invalid_request", { detail }, param);
}
