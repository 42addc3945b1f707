import { defineConfig } from "drizzle-kit";

/** PostgreSQL's migrations, from db/schema_pg.ts (`deno task db:generate:pg`). */
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/schema_pg.ts",
  out: "./db/migrations_pg",
});
