// TITLE order ignores accents and case (Restaurant."titleOrder", titleOrderKey in src/db/search/words.ts), the same
// on both databases, then the id: "João's" sorts between "Joana" and "Jonas's". Before, the
// lower-cased title was compared by character code, and "João's" came after "Jonas's" ("ã" is
// past every ASCII letter).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrate } from "../../src/db/migrate.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let token: string;

async function ok(query: string, variables: Record<string, unknown> = {}) {
  const r = await s.graphql(query, variables, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}

const CREATE = `mutation($input: CreateRestaurantInput!) { createRestaurant(input: $input) { id } }`;
const create = async (title: string) => (await ok(CREATE, { input: { title } })).createRestaurant.id as string;

const PAGE = `query($first: Int, $after: String) { restaurants(sort: TITLE, first: $first, after: $after) {
  nodes { id title } pageInfo { hasNextPage endCursor } } }`;
type Node = { id: string; title: string };

/** Every restaurant by title, `first` at a time with the cursors. */
async function byTitle(first: number): Promise<Node[]> {
  const all: Node[] = [];
  for (let after: string | null = null; ;) {
    const { restaurants } = await ok(PAGE, { first, after });
    all.push(...restaurants.nodes);
    if (!restaurants.pageInfo.hasNextPage) return all;
    after = restaurants.pageInfo.endCursor;
  }
}

beforeAll(async () => {
  s = await startServer();
  token = (await s.signUp("titles")).token;
});
afterAll(async () => s?.close());

describe("title order", () => {
  it("folds accents and case, on GraphQL and REST, and pages by cursor with no gap or duplicate", async () => {
    const titles = ["Jonas's", "Zoë", "João's", "JOKER", "Émile", "zoo", "Joana", "Ærø", "Eve", "jolly", "Adam"];
    for (const title of titles) await create(title);
    const expected = ["Adam", "Ærø", "Émile", "Eve", "Joana", "João's", "JOKER", "jolly", "Jonas's", "Zoë", "zoo"];
    expect((await byTitle(100)).map((n) => n.title)).toEqual(expected);

    const rest = await s.fetch("/restaurants?sort=title&limit=100", { token });
    expect(rest.status).toBe(200);
    expect(((await rest.json()) as { title: string }[]).map((r) => r.title)).toEqual(expected);

    // Titles equal once folded ("Café", "CAFE", "cafe" ...) tie on the key: the id orders them, so
    // pages of any size split the same order.
    for (const title of ["Café", "CAFE", "cafe", "Cafè", "Çafe", "Cafe", "café", "CAFÉ"]) await create(title);
    const whole = await byTitle(100);
    expect(whole).toHaveLength(titles.length + 8);
    for (const first of [1, 2, 3, 7]) expect(await byTitle(first)).toEqual(whole);
    const cafes = whole.filter((n) => n.title.toLowerCase().normalize("NFD").startsWith("c"));
    expect(cafes).toHaveLength(8);
    expect(cafes.map((n) => n.id)).toEqual(cafes.map((n) => n.id).sort());
    expect(whole.slice(2, 10)).toEqual(cafes); // after "Adam" and "Ærø", before "Émile"
  });

  it("keys rows that lack one when the migrations run (rows from before the column, or written by hand)", async () => {
    const id = await create("Ölberg");
    await s.db.prisma.restaurant.update({ where: { id }, data: { titleOrder: "" } });
    await migrate({ dialect: s.database.provider, url: s.database.url } as Parameters<typeof migrate>[0]);
    const row = await s.db.prisma.restaurant.findUniqueOrThrow({ where: { id }, select: { titleOrder: true } });
    expect(row.titleOrder).toBe("olberg");
  });
});
