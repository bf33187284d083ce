// Badges through the real server: admins grant and revoke them; everyone signed in reads them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let owner: { token: string; id: string };
let admin: { token: string; id: string };

beforeAll(async () => {
  s = await startServer();
  owner = await s.signUp("owner");
  admin = await s.signUp("adm", "ADMIN");
});
afterAll(async () => s?.close());

const GRANT = `mutation($restaurantId: ID!, $name: String!, $cover: String) {
  grantBadge(restaurantId: $restaurantId, name: $name, cover: $cover) { badge { id name cover } receivedAt } }`;
const REVOKE = `mutation($restaurantId: ID!, $badgeId: ID!) { revokeBadge(restaurantId: $restaurantId, badgeId: $badgeId) }`;
const BADGES = `{ badges { id name cover } }`;
const HELD = `query($id: ID!) { restaurant(id: $id) { badges { badge { id name cover } receivedAt } } }`;

async function ok(query: string, variables: Record<string, unknown>, token: string) {
  const r = await s.graphql(query, variables, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}

async function fails(code: string, query: string, variables: Record<string, unknown>, token?: string) {
  const r = await s.graphql(query, variables, token);
  expect(r.errors?.[0]?.extensions?.code, JSON.stringify(r.body)).toBe(code);
  expect(r.data ?? null).toBeNull();
  return r.errors![0];
}

async function restaurant(title = "Bistro") {
  const r = await ok(
    `mutation($t: String!) { createRestaurant(input: { title: $t }) { id } }`,
    { t: title },
    owner.token,
  );
  return r.createRestaurant.id as string;
}

const held = async (id: string) => (await ok(HELD, { id }, owner.token)).restaurant.badges;

describe("grantBadge", () => {
  it("creates a badge on first use and grants it", async () => {
    const id = await restaurant();
    const before = Date.now();
    const { grantBadge } = await ok(
      GRANT,
      { restaurantId: id, name: " Hygiene 5 stars ", cover: "hygiene.png" },
      admin.token,
    );
    expect(grantBadge.badge).toMatchObject({ name: "Hygiene 5 stars", cover: "hygiene.png" });
    expect(Date.parse(grantBadge.receivedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(await held(id)).toEqual([grantBadge]);
  });

  it("reuses the badge of that name for another restaurant, keeping its cover", async () => {
    const [a, b] = [await restaurant("A"), await restaurant("B")];
    const first = (await ok(GRANT, { restaurantId: a, name: "Local favourite", cover: "fav.png" }, admin.token))
      .grantBadge;
    const count = await s.db.prisma.badge.count();
    const second = (await ok(GRANT, { restaurantId: b, name: "Local favourite", cover: "other.png" }, admin.token))
      .grantBadge;
    expect(second.badge).toEqual(first.badge);
    expect(await s.db.prisma.badge.count()).toBe(count);
  });

  it("answers the badge already held when granted again, without an error or a duplicate", async () => {
    const id = await restaurant();
    const first = (await ok(GRANT, { restaurantId: id, name: "Twice" }, admin.token)).grantBadge;
    const again = (await ok(GRANT, { restaurantId: id, name: "Twice" }, admin.token)).grantBadge;
    expect(again).toEqual(first);
    expect(await s.db.prisma.restaurantBadge.count({ where: { restaurantId: id } })).toBe(1);
  });

  it("lists several badges in the order they were received", async () => {
    const id = await restaurant();
    await ok(GRANT, { restaurantId: id, name: "First" }, admin.token);
    await new Promise((r) => setTimeout(r, 5));
    await ok(GRANT, { restaurantId: id, name: "Second" }, admin.token);
    expect((await held(id)).map((b: any) => b.badge.name)).toEqual(["First", "Second"]);
  });

  it("refuses a user who is not an admin, even the owner, and creates nothing", async () => {
    const id = await restaurant();
    const badges = await s.db.prisma.badge.count();
    const error = await fails("FORBIDDEN", GRANT, { restaurantId: id, name: "Self-awarded" }, owner.token);
    expect(error.message).toMatch(/admins/);
    expect(await s.db.prisma.badge.count()).toBe(badges);
    expect(await held(id)).toEqual([]);
  });

  it("refuses a caller without a token", async () => {
    const id = await restaurant();
    await fails("UNAUTHENTICATED", GRANT, { restaurantId: id, name: "Anon" });
    expect(await held(id)).toEqual([]);
  });

  it("answers NOT_FOUND for an unknown restaurant and creates no badge", async () => {
    const badges = await s.db.prisma.badge.count();
    await fails("NOT_FOUND", GRANT, { restaurantId: "no-such-restaurant", name: "Orphan" }, admin.token);
    expect(await s.db.prisma.badge.count()).toBe(badges);
  });

  it.each([
    ["an empty name", { name: "  " }, /name/],
    ["a name over 100 characters", { name: "n".repeat(101) }, /name.*100/],
    ["a cover over 2000 characters", { name: "Fine", cover: "c".repeat(2001) }, /cover/],
  ])("refuses %s with BAD_USER_INPUT and changes nothing", async (_, args, message) => {
    const id = await restaurant();
    const badges = await s.db.prisma.badge.count();
    const error = await fails("BAD_USER_INPUT", GRANT, { restaurantId: id, ...args }, admin.token);
    expect(error.message).toMatch(message);
    expect(await s.db.prisma.badge.count()).toBe(badges);
    expect(await held(id)).toEqual([]);
  });
});

describe("revokeBadge", () => {
  it("takes the badge back (true), then has nothing to take (false); the badge itself stays", async () => {
    const id = await restaurant();
    const { badge } = (await ok(GRANT, { restaurantId: id, name: "Revocable" }, admin.token)).grantBadge;
    expect((await ok(REVOKE, { restaurantId: id, badgeId: badge.id }, admin.token)).revokeBadge).toBe(true);
    expect(await held(id)).toEqual([]);
    expect((await ok(REVOKE, { restaurantId: id, badgeId: badge.id }, admin.token)).revokeBadge).toBe(false);
    expect((await ok(BADGES, {}, owner.token)).badges.map((b: any) => b.id)).toContain(badge.id);
  });

  it("answers false for a badge id that does not exist", async () => {
    const id = await restaurant();
    expect((await ok(REVOKE, { restaurantId: id, badgeId: "no-such-badge" }, admin.token)).revokeBadge).toBe(false);
  });

  it("refuses a user who is not an admin and a caller without a token; the badge stays", async () => {
    const id = await restaurant();
    const { badge } = (await ok(GRANT, { restaurantId: id, name: "Sticky" }, admin.token)).grantBadge;
    await fails("FORBIDDEN", REVOKE, { restaurantId: id, badgeId: badge.id }, owner.token);
    await fails("UNAUTHENTICATED", REVOKE, { restaurantId: id, badgeId: badge.id });
    expect((await held(id)).map((b: any) => b.badge.id)).toEqual([badge.id]);
  });

  it("answers NOT_FOUND for an unknown restaurant", async () => {
    const id = await restaurant();
    const { badge } = (await ok(GRANT, { restaurantId: id, name: "Somewhere" }, admin.token)).grantBadge;
    await fails("NOT_FOUND", REVOKE, { restaurantId: "no-such-restaurant", badgeId: badge.id }, admin.token);
  });
});

describe("badges", () => {
  it("lists every badge by name for any signed-in user", async () => {
    const id = await restaurant();
    for (const name of ["zz last", "AA first"]) await ok(GRANT, { restaurantId: id, name }, admin.token);
    const { badges } = await ok(BADGES, {}, owner.token);
    const names = badges.map((b: any) => b.name);
    expect(names).toEqual(expect.arrayContaining(["zz last", "AA first"]));
    expect(names.indexOf("AA first")).toBeLessThan(names.indexOf("zz last"));
    expect(badges).toHaveLength(await s.db.prisma.badge.count());
  });

  it("refuses a caller without a token", async () => {
    await fails("UNAUTHENTICATED", BADGES, {});
  });

  it("keeps a badge when the restaurant holding it is removed", async () => {
    const id = await restaurant();
    const { badge } = (await ok(GRANT, { restaurantId: id, name: "Survivor" }, admin.token)).grantBadge;
    await ok(`mutation($id: ID!) { deleteRestaurant(id: $id) }`, { id }, owner.token);
    expect((await ok(BADGES, {}, owner.token)).badges.map((b: any) => b.id)).toContain(badge.id);
    expect(await s.db.prisma.restaurantBadge.count({ where: { badgeId: badge.id } })).toBe(0);
  });
});
