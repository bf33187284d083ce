// Prisma CLI settings for the sqlite variant (used by generate and migrate diff only; the service
// applies migrations itself, see src/db/migrate.ts). engine "js" keeps the CLI off the network.
import { defineConfig } from "prisma/config";
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "sqlite/schema.prisma",
  migrations: { path: "sqlite/migrations" },
  adapter: async () => new PrismaBetterSQLite3({ url: process.env.SQLITE_URL ?? "file:./prisma-cli.db" }),
});
