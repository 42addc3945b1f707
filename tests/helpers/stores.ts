/**
 * Store tests run once per dialect: the embedded SQLite store (in memory) and a database of its
 * own on the process's throwaway PostgreSQL (tests/helpers/postgres.ts), ignored with the
 * reason where PostgreSQL's binaries are absent.
 */
import { openStore, type Store } from "../../db/store.ts";
import { freshDatabase, postgresMissing } from "./postgres.ts";
import { skipNote } from "./skip.ts";

export interface StoreKind {
  dialect: Store["dialect"];
  /** Why it cannot run here, or undefined. */
  missing: string | undefined;
  /** Where a new, empty store of this kind is: a file path in `dir`, or a PostgreSQL URL. */
  where(dir: string): Promise<string>;
}

export const storeKinds: readonly StoreKind[] = [
  { dialect: "sqlite", missing: undefined, where: (dir) => Promise.resolve(`${dir}/llmgw.db`) },
  { dialect: "postgres", missing: postgresMissing, where: () => freshDatabase() },
];

/** Registers `fn` once per dialect, each with a new, migrated store closed afterwards. */
export function storeTest(name: string, fn: (store: Store) => Promise<void>): void {
  for (const kind of storeKinds) {
    Deno.test({
      name: `${name} [${kind.dialect}]${skipNote(kind.missing)}`,
      ignore: !!kind.missing,
      fn: async () => {
        const dir = await Deno.makeTempDir({ prefix: "llmgw-store-" });
        const store = await openStore(await kind.where(dir));
        try {
          await fn(store);
        } finally {
          await store.close();
          await Deno.remove(dir, { recursive: true });
        }
      },
    });
  }
}

/** Registers `fn` once per dialect; it makes its own store of that dialect (e.g. a harness). */
export function dialectTest(name: string, fn: (dialect: Store["dialect"]) => Promise<void>): void {
  for (const kind of storeKinds) {
    Deno.test({
      name: `${name} [${kind.dialect}]${skipNote(kind.missing)}`,
      ignore: !!kind.missing,
      fn: () => fn(kind.dialect),
    });
  }
}
