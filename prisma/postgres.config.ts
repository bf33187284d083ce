// Prisma CLI settings for the postgres variant (used by generate and migrate diff only; the service
// applies migrations itself, see src/db/migrate.ts). engine "js" keeps the CLI off the network.
import { defineConfig } from "prisma/config";
import { PrismaPg } from "@prisma/adapter-pg";

export default defineConfig({
  experimental: { adapter: true },
  engine: "js",
  schema: "postgres/schema.prisma",
  migrations: { path: "postgres/migrations" },
  adapter: async () => new PrismaPg({ connectionString: process.env.PG_URL }),
});
