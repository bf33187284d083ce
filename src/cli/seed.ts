// `npm run seed [-- --size small|medium|large]`: loads the demo data set into the database
// DATABASE_URL names (migrating it first, like the server) and cover images into UPLOAD_DIR (or
// the bucket, with UPLOAD_STORE=s3).
// Running it again adds nothing: every seeded row has a fixed id.
import "../node-guard.ts"; // first: stops an unsupported Node before the SQLite driver loads
import { ConfigError, loadConfig } from "../config.ts";
import { createDb } from "../db/client.ts";
import { migrate } from "../db/migrate.ts";
import { createUploadStore } from "../storage/upload-store.ts";
import { isSizeName, SEED_CITIES, SIZES, type SizeName } from "../seed/dataset.ts";
import { progressPrinter } from "../seed/progress.ts";
import { DEFAULT_SEED_PASSWORD, seed, type SeedReport } from "../seed/seed.ts";

const HELP = `Usage: npm run seed [-- --size small|medium|large|200k|1m] [--cities 1-${SEED_CITIES.length}]

Loads demo data: restaurants in several cities with cuisines, opening hours, badges and rated
comments; groceries with categories, units and cover images; orders and shopping lists; a demo
user and an admin. Safe to run again: what is already there is left as it is.

Sizes:
${Object.entries(SIZES)
  .map(
    ([name, s]) =>
      `  ${name.padEnd(7)} ${s.restaurants} restaurants, ${s.groceries} groceries, ${s.users} users${name === "small" ? " (default)" : ""}`,
  )
  .join("\n")}

Settings (environment):
  DATABASE_URL   the database (default: the SQLite file under ./data)
  UPLOAD_DIR     where cover images are written (default ./data/uploads; UPLOAD_STORE=s3 and
                 the S3_* settings: into that bucket)
  SEED_PASSWORD  password of every seeded account (default "${DEFAULT_SEED_PASSWORD}"; at least 8 characters)`;

type Arguments = { size: SizeName; cities?: number } | { help: true } | { error: string };

function parseArguments(argv: string[]): Arguments {
  let size: SizeName = "small";
  let cities: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--help" || arg === "-h" || arg === "help") return { help: true };
    const [name, inline] = arg.startsWith("--") && arg.includes("=") ? arg.split("=", 2) : [arg, undefined];
    if (name !== "--size" && name !== "--cities") return { error: `unknown argument "${arg}"` };
    const value = inline ?? argv[++i];
    if (name === "--size") {
      if (!value || !isSizeName(value)) return { error: `--size must be one of ${Object.keys(SIZES).join(", ")}` };
      size = value;
    } else {
      cities = Number(value);
      if (!Number.isInteger(cities) || cities < 1 || cities > SEED_CITIES.length)
        return { error: `--cities must be a whole number from 1 to ${SEED_CITIES.length}` };
    }
  }
  return { size, cities };
}

function summary(report: SeedReport, password: string, fromEnvironment: boolean, cities?: number): string {
  const where = cities ? `restaurants in ${SEED_CITIES.slice(0, cities).join(", ")}` : undefined;
  const added = Object.entries(report.inserted).filter(([, n]) => n > 0);
  const lines = [
    added.length
      ? `seed (${report.size}): added ${added.map(([what, n]) => `${n} ${what}`).join(", ")}`
      : `seed (${report.size}): everything was already there; nothing added`,
    ...(where ? [`  ${where}`] : []),
    "",
    "Accounts (all seeded accounts share this password):",
    `  demo user: ${report.accounts.demo}`,
    `  admin:     ${report.accounts.admin}`,
    report.passwordWorks
      ? `  password:  ${password}${fromEnvironment ? " (from SEED_PASSWORD)" : ""}`
      : `  password:  the one given to the run that created them (${fromEnvironment ? "SEED_PASSWORD" : "the default"} does not match)`,
  ];
  return lines.join("\n");
}

async function main(argv: string[]): Promise<number> {
  const args = parseArguments(argv);
  if ("help" in args) {
    console.log(HELP);
    return 0;
  }
  if ("error" in args) {
    console.error(`${args.error}\n\n${HELP}`);
    return 2;
  }
  const fromEnvironment = Boolean(process.env.SEED_PASSWORD);
  const password = process.env.SEED_PASSWORD || DEFAULT_SEED_PASSWORD;
  if (password.length < 8) {
    console.error("SEED_PASSWORD must have at least 8 characters (the sign-in rule).");
    return 2;
  }
  const config = loadConfig();
  await migrate(config.database);
  const db = createDb(config.database);
  const store = await createUploadStore(config);
  try {
    // A bar for the bigger sizes; the small one is done before a bar would show anything.
    const onProgress = args.size === "small" ? undefined : progressPrinter(process.stderr);
    const report = await seed(db, {
      size: args.size,
      cities: args.cities,
      uploadDir: config.uploadDir,
      store,
      password,
      onProgress,
      database: config.database,
    });
    console.log(summary(report, password, fromEnvironment, args.cities));
    return 0;
  } finally {
    store.close();
    await db.close();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exitCode = 2;
  } else throw error;
}
