// Prisma CLI settings for the SQLite variant (used by generate and migrate diff only; the service
// applies migrations itself, see src/db/migrate.ts). Prisma 7's CLI downloads a native schema
// engine before most commands unless PRISMA_SCHEMA_ENGINE_BINARY names a file: point it at the
// WebAssembly stand-in (generate never runs it; migrate diff does). Always pass --config.
import { fileURLToPath } from "node:url";
import { defineConfig } from "prisma/config";

process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= fileURLToPath(new URL("./schema-engine.mjs", import.meta.url));

export default defineConfig({
  schema: "sqlite/schema.prisma",
  migrations: { path: "sqlite/migrations" },
  datasource: { url: process.env.SQLITE_URL ?? "file:./prisma-cli.db" },
});
