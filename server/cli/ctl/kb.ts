/**
 * `ctl kb`: knowledge base collections and their documents. A COLLECTION is its id or its name
 * (a name two collections share must be given as an id). `kb add` sends each file's bytes and
 * then shows each import's progress until it has ended; it exits 1 when one failed.
 */
import { basename } from "node:path";
import type { KyInstance } from "ky";
import { UsageError } from "../../../core/command.ts";
import { arg, col, type Noun, printList, printOne, str } from "./client.ts";

interface CollectionView {
  id: string;
  name: string;
  org_id: string;
  project_id: string | null;
  embedding_model: string;
  status: { documents: number; passages: number; embedded: number; importing: number };
  last_error: string | null;
}

interface DocumentView {
  id: string;
  name: string;
  status: string;
  passages: number;
  embedded: number;
  error: string | null;
}

async function find(api: KyInstance, ref: string): Promise<CollectionView> {
  const { data } = await api.get("kb/collections").json<{ data: CollectionView[] }>();
  const byId = data.find((c) => c.id === ref);
  if (byId) return byId;
  const named = data.filter((c) => c.name === ref);
  if (named.length === 1) return named[0]!;
  throw new UsageError(
    named.length === 0
      ? `no knowledge base '${ref}' that you may see`
      : `${named.length} knowledge bases are named '${ref}': give its id (${
        named.map((c) => c.id).join(", ")
      })`,
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls each document until its import ends, printing progress as it changes. */
async function follow(
  api: KyInstance,
  collection: string,
  docs: DocumentView[],
  everyMs = 500,
): Promise<DocumentView[]> {
  const out: DocumentView[] = [];
  for (let doc of docs) {
    let shown = -1;
    while (doc.status === "importing") {
      if (doc.embedded !== shown) {
        console.error(`  ${doc.name}: ${doc.embedded}/${doc.passages} passages embedded`);
        shown = doc.embedded;
      }
      await sleep(everyMs);
      doc = await api.get(`kb/collections/${collection}/documents/${doc.id}`).json<DocumentView>();
    }
    out.push(doc);
  }
  return out;
}

function statusLine(c: CollectionView): string {
  const s = c.status;
  return `${c.name} (${c.id}): ${s.documents} documents, ${s.embedded}/${s.passages} passages ` +
    `embedded by ${c.embedding_model}${s.importing ? `, ${s.importing} importing` : ""}` +
    (c.last_error ? `\n  last error: ${c.last_error}` : "");
}

export const kb: Noun = {
  name: "kb",
  verbs: {
    list: {
      help: `  kb list                                     Knowledge bases, with their status`,
      run: async (ctx) => {
        const res = await ctx.api.get("kb/collections").json<{ data: CollectionView[] }>();
        const rows = res.data.map((c) => ({
          ...c,
          documents: c.status.documents,
          passages: `${c.status.embedded}/${c.status.passages}`,
        }));
        return printList(ctx.json, { data: rows }, [
          col("id", "Id"),
          col("name", "Name"),
          col("project_id", "Project"),
          col("org_id", "Organisation"),
          col("embedding_model", "Embedding model"),
          col("documents", "Documents"),
          col("passages", "Passages embedded"),
          col("last_error", "Last error"),
        ]);
      },
    },
    create: {
      help: `  kb create NAME (--project P | --org O) --model EMBEDDING_MODEL
             [--passage-words N] [--overlap-words K]   A collection for a project's keys, or an org's`,
      flags: {
        project: { type: "string" },
        org: { type: "string" },
        model: { type: "string" },
        "passage-words": { type: "string" },
        "overlap-words": { type: "string" },
      },
      run: async (ctx) => {
        const name = arg(ctx, 0, "kb create needs a NAME");
        const model = str(ctx.values, "model");
        if (!model) throw new UsageError("kb create needs --model EMBEDDING_MODEL");
        const project = str(ctx.values, "project");
        const org = str(ctx.values, "org");
        if (!project === !org) throw new UsageError("kb create needs --project P or --org O");
        const number = (flag: string) => {
          const v = str(ctx.values, flag);
          if (v === undefined) return undefined;
          const n = Number(v);
          if (!Number.isInteger(n)) throw new UsageError(`--${flag} must be a whole number`);
          return n;
        };
        const json = {
          name,
          embedding_model: model,
          ...(project ? { project_id: project } : { org_id: org }),
          ...(number("passage-words") !== undefined
            ? { passage_words: number("passage-words") }
            : {}),
          ...(number("overlap-words") !== undefined
            ? { overlap_words: number("overlap-words") }
            : {}),
        };
        const res = await ctx.api.post("kb/collections", { json }).json<CollectionView>();
        return printOne(ctx.json, res, `Made the knowledge base ${statusLine(res)}`);
      },
    },
    add: {
      help:
        `  kb add COLLECTION FILE...                   Add documents (text, Markdown, HTML, PDF); the
                                              same file name again replaces it; shows progress`,
      run: async (ctx) => {
        const c = await find(ctx.api, arg(ctx, 0, "kb add needs a COLLECTION"));
        const files = ctx.args.slice(1);
        if (files.length === 0) throw new UsageError("kb add needs at least one FILE");
        const started: DocumentView[] = [];
        for (const file of files) {
          const bytes = await Deno.readFile(file);
          started.push(
            await ctx.api.post(`kb/collections/${c.id}/documents`, {
              body: bytes,
              searchParams: { name: basename(file) },
              headers: { "content-type": "application/octet-stream" },
            }).json<DocumentView>(),
          );
        }
        const done = await follow(ctx.api, c.id, started);
        const failed = done.filter((d) => d.status !== "ready");
        printOne(
          ctx.json,
          done,
          done.map((d) =>
            `${d.name}: ${d.status}, ${d.embedded}/${d.passages} passages` +
            (d.error ? ` (${d.error})` : "")
          ).join("\n"),
        );
        return failed.length ? 1 : 0;
      },
    },
    status: {
      help: `  kb status COLLECTION                        A collection's status and its documents`,
      run: async (ctx) => {
        const c = await find(ctx.api, arg(ctx, 0, "kb status needs a COLLECTION"));
        const docs = await ctx.api.get(`kb/collections/${c.id}/documents`)
          .json<{ data: DocumentView[] }>();
        if (ctx.json) return printOne(true, { ...c, documents: docs.data }, "");
        console.log(statusLine(c));
        return printList(false, docs, [
          col("name", "Document"),
          col("status", "Status"),
          col("passages", "Passages"),
          col("embedded", "Embedded"),
          col("error", "Error"),
        ]);
      },
    },
    remove: {
      help:
        `  kb remove COLLECTION [DOCUMENT]             Remove a document (by name), or the collection`,
      run: async (ctx) => {
        const c = await find(ctx.api, arg(ctx, 0, "kb remove needs a COLLECTION"));
        const docName = ctx.args[1];
        if (docName === undefined) {
          const res = await ctx.api.delete(`kb/collections/${c.id}`).json();
          return printOne(ctx.json, res, `Removed the knowledge base ${c.name}`);
        }
        const docs = await ctx.api.get(`kb/collections/${c.id}/documents`)
          .json<{ data: DocumentView[] }>();
        const doc = docs.data.find((d) => d.name === docName || d.id === docName);
        if (!doc) throw new UsageError(`${c.name} has no document '${docName}'`);
        const res = await ctx.api.delete(`kb/collections/${c.id}/documents/${doc.id}`).json();
        return printOne(ctx.json, res, `Removed ${doc.name} from ${c.name}`);
      },
    },
  },
  note:
    `  Search with a client key: POST /v1/kb/COLLECTION/search, x-llmgw-kb on chat, file_search`,
};
