// Writes the two provider variants of prisma/base.prisma and generates both Prisma clients.
// Runs on `npm install` (postinstall), offline: the config files point the CLI at a stand-in
// schema engine, so it downloads nothing. The variants differ only in provider and output folder
// (Prisma 7 keeps the connection URL out of schema files); both are committed so migrations can be
// authored with `migrate diff`.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
export const PROVIDERS = [
  { dir: "sqlite", provider: "sqlite" },
  { dir: "postgres", provider: "postgresql" },
];

export function writeSchemas() {
  const base = readFileSync(here("./base.prisma"), "utf8");
  for (const { dir, provider } of PROVIDERS) {
    const header = `// GENERATED from prisma/base.prisma by prisma/generate.mjs - do not edit
generator client {
  provider = "prisma-client"
  output   = "../../generated/${dir}"
}

datasource db {
  provider = "${provider}"
}

`;
    mkdirSync(here(`./${dir}/`), { recursive: true });
    writeFileSync(here(`./${dir}/schema.prisma`), header + base);
  }
}

/** Runs the Prisma CLI for one provider, always with its config file (without it the CLI tries to download an engine). */
export function prismaCli(p, args, opts = {}) {
  return execFileSync(
    process.execPath,
    [here("../node_modules/prisma/build/index.js"), ...args, "--config", here(`./${p.dir}.config.ts`)],
    {
      stdio: opts.capture ? ["ignore", "pipe", "inherit"] : "inherit",
      encoding: "utf8",
      env: { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1" },
    },
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeSchemas();
  for (const p of PROVIDERS) prismaCli(p, ["generate"]);
}
