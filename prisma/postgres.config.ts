// Prisma CLI settings for the PostgreSQL variant (used by generate and migrate diff only; the service
// applies migrations itself, see src/db/migrate.ts). See sqlite.config.ts for the engine variable.
// A schema-to-schema diff needs no server: the stand-in answers it offline when PG_URL is unreachable.
import { fileURLToPath } from "node:url";
import { defineConfig } from "prisma/config";

process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= fileURLToPath(new URL("./schema-engine.mjs", import.meta.url));

export default defineConfig({
  schema: "postgres/schema.prisma",
  migrations: { path: "postgres/migrations" },
  datasource: { url: process.env.PG_URL ?? "postgresql://postgres@127.0.0.1:5432/unused" },
});
