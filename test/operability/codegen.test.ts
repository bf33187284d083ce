// The types generated from schema.graphql (scripts/codegen.ts) are current, cover every root
// field, and do their job: a schema change that breaks a resolver or a REST route fails `tsc`.
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { buildSchema, type GraphQLObjectType } from "graphql";
import { afterAll, describe, expect, it } from "vitest";
import { generate, OUT, writeGenerated } from "../../scripts/codegen.ts";
import { routes } from "../../src/rest/routes/index.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const schemaText = readFileSync(join(ROOT, "schema.graphql"), "utf8");

describe("generated GraphQL types", () => {
  it("are the ones schema.graphql and the route table give (if not: npm run codegen)", async () => {
    const files = await generate(ROOT);
    for (const [name, text] of Object.entries(files)) {
      expect(readFileSync(join(ROOT, OUT, name), "utf8"), `${OUT}/${name} is out of date: run npm run codegen`).toBe(
        text,
      );
    }
  });

  it("give every root field a resolver type, and every REST row its document's result type", async () => {
    const { "resolvers.ts": resolvers, "rest-routes.ts": restRoutes } = await generate(ROOT);
    const schema = buildSchema(schemaText);
    const roots = [
      schema.getQueryType(),
      schema.getMutationType(),
      schema.getSubscriptionType(),
    ] as GraphQLObjectType[];
    for (const root of roots) {
      const block = resolvers.slice(resolvers.indexOf(`export type ${root.name}Resolvers<`));
      const body = block.slice(0, block.indexOf("\n};"));
      for (const field of Object.keys(root.getFields()))
        expect(body).toMatch(new RegExp(`\\n  ${field}\\?: (Subscription)?Resolver<`));
    }
    for (const route of routes) expect(restRoutes).toContain(`${JSON.stringify(route.operation)}: Operations.`);
  });
});

describe("a schema change that breaks the code", () => {
  const copy = mkdtempSync(join(tmpdir(), "codegen-"));
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it("fails codegen, naming the route, when a REST document no longer validates", async () => {
    const other = mkdtempSync(join(tmpdir(), "codegen-"));
    try {
      cpSync(join(ROOT, "src"), join(other, "src"), {
        recursive: true,
        filter: (path) => !path.includes("__generated__"),
      });
      writeFileSync(
        join(other, "schema.graphql"),
        schemaText.replace("  alsoKnownAs: String!\n", "  akaName: String!\n"),
      );
      await expect(generate(other)).rejects.toThrow(
        /REST route "Add grocery" \(POST \/groceries\): Cannot query field "alsoKnownAs" on type "Grocery"/,
      );
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it("fails tsc in the resolver and in the REST shape that rely on it", { timeout: 240_000 }, async () => {
    // A copy of the checkout's code (the installed packages and Prisma clients linked, not copied).
    cpSync(join(ROOT, "src"), join(copy, "src"), {
      recursive: true,
      filter: (path) => !path.includes("__generated__"),
    });
    symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
    symlinkSync(join(ROOT, "generated"), join(copy, "generated"));
    const tsconfig = JSON.parse(readFileSync(join(ROOT, "tsconfig.json"), "utf8"));
    writeFileSync(join(copy, "tsconfig.json"), JSON.stringify({ ...tsconfig, include: ["src"] }));
    // Restaurant.commentCount renamed (its resolver in resolvers/catalogue/restaurants.ts names the old field);
    // Restaurant.openingHours made nullable (the legacy shapes map over it).
    const changed = schemaText
      .replace("  commentCount: Int!\n", "  reviewCount: Int!\n")
      .replace("  openingHours: [OpeningHours!]!\n", "  openingHours: [OpeningHours!]\n");
    expect(changed.match(/reviewCount|openingHours: \[OpeningHours!\]\n/g)).toHaveLength(2);
    writeFileSync(join(copy, "schema.graphql"), changed);

    await writeGenerated(copy);
    const tsc = await promisify(execFile)(
      process.execPath,
      [join(ROOT, "node_modules/typescript/bin/tsc"), "--noEmit", "-p", copy],
      {
        cwd: copy,
        maxBuffer: 16 * 1024 * 1024,
      },
    ).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    const errorsIn = (file: string) =>
      tsc.split("\n").filter((line) => line.startsWith(file) && line.includes("error TS"));
    expect(errorsIn("src/graphql/resolvers/catalogue/restaurants.ts").join("\n")).toMatch(/commentCount/);
    expect(errorsIn("src/rest/shapes/restaurant.ts").join("\n")).toMatch(/openingHours/);
  });
});
