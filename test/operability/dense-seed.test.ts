// The seed's density setting (issue 48): `npm run seed -- --cities N` puts the restaurants in the
// first N of the seed's cities, each the denser, as a big-city deployment is; bench:search reads it.
// The command line on a fresh database, then the catalogue as the server shows it.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { restaurant, SEED_CITIES, SIZES } from "../../src/seed/dataset.ts";
import { createTestDatabase } from "../helpers/database.ts";
import { startServer } from "../helpers/server.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const run = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, ["--import", "tsx", "src/cli/seed.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: 60_000,
  });

describe("npm run seed -- --cities N", () => {
  it("puts every restaurant in the first N cities, as many in each, and the server shows that catalogue", async () => {
    const database = await createTestDatabase();
    const uploads = mkdtempSync(path.join(tmpdir(), "gw-dense-seed-"));
    try {
      const seeded = run(["--size", "small", "--cities", "2"], { DATABASE_URL: database.url, UPLOAD_DIR: uploads });
      expect(seeded.status, seeded.stderr).toBe(0);
      expect(seeded.stdout).toContain("restaurants in Lisbon, Berlin");
      const s = await startServer({}, { database });
      try {
        const user = await s.signUp("dense");
        const r = await s.graphql(
          `{ restaurants(first: 1) { totalCount facets { exact cities { value count } } } }`,
          {},
          user.token,
        );
        expect(r.errors).toBeUndefined();
        expect(r.data.restaurants.totalCount).toBe(SIZES.small.restaurants);
        expect(r.data.restaurants.facets.cities).toEqual([
          { value: "Berlin", count: SIZES.small.restaurants / 2 },
          { value: "Lisbon", count: SIZES.small.restaurants / 2 },
        ]);
        // Near Lisbon's centre: half the catalogue, where the spread seed has an eighth.
        const near = await s.graphql(
          `{ restaurants(filter: { near: { latitude: 38.7223, longitude: -9.1393, radiusKm: 50 } }) { totalCount } }`,
          {},
          user.token,
        );
        expect(near.data.restaurants.totalCount).toBe(SIZES.small.restaurants / 2);
      } finally {
        await s.close();
      }
    } finally {
      await database.drop();
      rmSync(uploads, { recursive: true, force: true });
    }
  });

  it("the bulk sizes' rows follow the same setting (the generator both paths share)", () => {
    const size = { ...SIZES["200k"], cities: 1 };
    for (const n of [1, 2, 9, 199_999]) expect(restaurant(n, size).row.city).toBe("Lisbon");
    expect([1, 2, 3, 9].map((n) => restaurant(n, SIZES["200k"]).row.city)).toEqual([
      SEED_CITIES[0],
      SEED_CITIES[1],
      SEED_CITIES[2],
      SEED_CITIES[0],
    ]);
  });

  it.each([["0"], ["9"], ["two"], ["1.5"]])("refuses --cities %s with usage and exit code 2, touching nothing", (n) => {
    const dir = mkdtempSync(path.join(tmpdir(), "gw-dense-bad-"));
    try {
      const bad = run(["--cities", n], {
        DATABASE_URL: `file:${path.join(dir, "x.db")}`,
        UPLOAD_DIR: path.join(dir, "up"),
      });
      expect(bad.status).toBe(2);
      expect(bad.stderr).toContain(`--cities must be a whole number from 1 to ${SEED_CITIES.length}`);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
