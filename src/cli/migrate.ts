// `npm run db:migrate`: applies pending migrations to DATABASE_URL (the server also does this on start-up).
import "../node-guard.ts"; // first: stops an unsupported Node before the SQLite driver loads
import { ConfigError, loadConfig } from "../config.ts";
import { migrate } from "../db/migrate.ts";

try {
  const config = loadConfig();
  const applied = await migrate(config.database);
  console.log(applied.length ? `applied: ${applied.join(", ")}` : "database is up to date");
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `migration failed: ${(error as Error).message}`);
  process.exit(error instanceof ConfigError ? 2 : 1);
}
