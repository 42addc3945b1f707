/**
 * Files on a cluster's store: two control planes (real apps, each its own data directory) on one
 * PostgreSQL store. A file uploaded through one is read whole through the other (its bytes in the
 * store, in chunks), nothing is written under either data directory, and a delete takes the
 * bytes with the row.
 */
import { count } from "drizzle-orm";
import { fileChunks } from "../../db/schema.ts";
import { assertEquals } from "../../tests/assert.ts";
import type { Harness } from "../../tests/helpers/harness.ts";
import { startPlanes } from "../../tests/helpers/shared_store.ts";
import { storeKinds } from "../../tests/helpers/stores.ts";
import { skipNote } from "../../tests/helpers/skip.ts";
import { fileChunkBytes } from "./file_store.ts";

const postgres = storeKinds.find((k) => k.dialect === "postgres")!;

async function upload(plane: Harness, key: string, bytes: Uint8Array<ArrayBuffer>) {
  const form = new FormData();
  form.set("purpose", "user_data");
  form.set("file", new File([bytes], "big.bin"));
  return await plane.app.request("/v1/files", {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
}

Deno.test({
  name: `a file uploaded on one control plane is read on another: its bytes are in PostgreSQL${
    skipNote(postgres.missing)
  }`,
  ignore: !!postgres.missing,
  fn: async () => {
    const { planes, close } = await startPlanes(2, { kind: postgres, maxBodyBytes: 8 << 20 });
    try {
      const [a, b] = planes as [Harness, Harness];
      // Two whole chunks and a part, every byte telling its place.
      const bytes = new Uint8Array(2 * fileChunkBytes + 12_345).map((_, i) => (i * 31) % 251);
      const made = await upload(a, a.key, bytes);
      assertEquals(made.status, 200, await made.clone().text());
      const { id } = await made.json();
      const read = await b.app.request(`/v1/files/${id}/content`, {
        headers: { authorization: `Bearer ${a.key}` },
      });
      assertEquals(read.status, 200);
      assertEquals(new Uint8Array(await read.arrayBuffer()), bytes);
      const chunks = async () => (await a.store.db.select({ n: count() }).from(fileChunks))[0]!.n;
      assertEquals(await chunks(), 3);
      for (const p of planes) {
        const dir = p.dataDir;
        const names = [...Deno.readDirSync(dir)].map((e) => e.name);
        assertEquals(names.includes("files"), false, `${dir}: ${names}`);
      }
      const gone = await b.app.request(`/v1/files/${id}`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${a.key}` },
      });
      assertEquals(gone.status, 200);
      await gone.body?.cancel();
      assertEquals(await chunks(), 0, "the bytes went with the file");
    } finally {
      await close();
    }
  },
});
