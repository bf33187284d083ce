// Writes the two provider variants of prisma/base.prisma and generates both Prisma clients.
// Runs on `npm install` (postinstall). The variants differ only in provider, url variable and
// output folder; both are committed so migrations can be authored with `migrate diff`.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
export const PROVIDERS = [
  { dir: "sqlite", provider: "sqlite", urlVar: "SQLITE_URL", example: "file:./prisma-cli.db" },
  { dir: "postgres", provider: "postgresql", urlVar: "PG_URL", example: "postgresql://localhost:5432/unused" },
];

export function writeSchemas() {
  const base = readFileSync(here("./base.prisma"), "utf8");
  for (const { dir, provider, urlVar } of PROVIDERS) {
    const header = `// GENERATED from prisma/base.prisma by prisma/generate.mjs - do not edit
generator client {
  provider   = "prisma-client"
  output     = "../../generated/${dir}"
  engineType = "client"
}

datasource db {
  provider = "${provider}"
  url      = env("${urlVar}")
}

`;
    mkdirSync(here(`./${dir}/`), { recursive: true });
    writeFileSync(here(`./${dir}/schema.prisma`), header + base);
  }
}

/** Runs the Prisma CLI for one provider; the url variable must be set or the CLI tries to download an engine. */
export function prismaCli(p, args, opts = {}) {
  return execFileSync(
    process.execPath,
    [here("../node_modules/prisma/build/index.js"), ...args, "--config", here(`./${p.dir}.config.ts`)],
    { stdio: opts.capture ? ["ignore", "pipe", "inherit"] : "inherit", encoding: "utf8",
      env: { ...process.env, [p.urlVar]: process.env[p.urlVar] ?? p.example, PRISMA_HIDE_UPDATE_MESSAGE: "1" } },
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeSchemas();
  for (const p of PROVIDERS) prismaCli(p, ["generate"]);
}
