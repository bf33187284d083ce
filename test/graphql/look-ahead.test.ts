// Root fields look ahead over their selection and read what it shows in one statement: a
// restaurant by id with its owner (and the owner's rating) and latest comment with its author, and
// a page of restaurants with their owners and the total. The answers are those the nested
// resolvers give on their own (checked against Prisma's rows), and nothing is read that no field
// shows (no password hash).
import { readFileSync } from "node:fs";
import { buildSchema, getNamedType, isLeafType, isObjectType, type GraphQLObjectType } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer } from "../helpers/server.ts";

let s: TestServer;
let token: string;
const restaurantIds: string[] = [];
let bare: string; // a restaurant without comments

beforeAll(async () => {
  s = await startServer();
  token = (await s.signUp("viewer")).token;
  const owners = await Promise.all(
    [0, 1, 2].map((i) =>
      s.db.prisma.user.create({ data: { username: `owner${i}`, passwordHash: "x", firstName: `O${i}` } }),
    ),
  );
  const critic = await s.db.prisma.user.create({
    data: { username: "critic", passwordHash: "x", firstName: "C", avatar: "c.png" },
  });
  for (let i = 0; i < 12; i++) {
    const ratings = [1 + (i % 5), 1 + ((i + 3) % 5)];
    const r = await s.db.prisma.restaurant.create({
      data: {
        title: `Place ${String(i).padStart(2, "0")}`,
        titleSearch: `place ${String(i).padStart(2, "0")}`,
        ownerId: owners[i % 3].id,
        ratingSum: i % 4 ? ratings[0] + ratings[1] : 0,
        ratingCount: i % 4 ? 2 : 0,
        ratingAvg: i % 4 ? (ratings[0] + ratings[1]) / 2 : null,
        createdAt: new Date(Date.UTC(2026, 0, 1, 0, i)),
        comments:
          i % 4
            ? {
                create: ratings.map((rating, k) => ({
                  authorId: k ? critic.id : owners[(i + 1) % 3].id,
                  title: `c${k} on ${i}`,
                  body: "b",
                  rating,
                  createdAt: new Date(Date.UTC(2026, 0, 2, 0, i, k)),
                })),
              }
            : undefined,
      },
    });
    restaurantIds.push(r.id);
    if (i % 4 === 0) bare = r.id;
  }
});
afterAll(async () => s?.close());

/** The answer and the statements of one request, once the token is in the session cache. */
async function run(query: string, variables?: Record<string, unknown>) {
  await s.graphql(`{ me { id } }`, undefined, token);
  s.sql.length = 0;
  const r = await s.graphql(query, variables, token);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return { data: r.data, sql: [...s.sql] };
}

/** What the nested fields must show for a restaurant, straight from Prisma. */
async function expected(id: string) {
  const r = await s.db.prisma.restaurant.findUniqueOrThrow({ where: { id }, include: { owner: true } });
  const owned = await s.db.prisma.restaurant.aggregate({
    where: { ownerId: r.ownerId },
    _sum: { ratingSum: true, ratingCount: true },
  });
  const latest = await s.db.prisma.comment.findFirst({
    where: { restaurantId: id },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    include: { author: true },
  });
  return {
    id,
    title: r.title,
    rating: r.ratingAvg,
    owner: {
      id: r.owner.id,
      username: r.owner.username,
      firstName: r.owner.firstName,
      avatar: r.owner.avatar,
      rating: owned._sum.ratingCount ? owned._sum.ratingSum! / owned._sum.ratingCount : null,
    },
    latestComment: latest && {
      id: latest.id,
      title: latest.title,
      rating: latest.rating,
      createdAt: latest.createdAt.toISOString(),
      author: { id: latest.author.id, username: latest.author.username, avatar: latest.author.avatar },
    },
  };
}

const BY_ID = `query($id: ID!) { restaurant(id: $id) { id title rating owner { id username firstName avatar rating }
  latestComment { id title rating createdAt author { id username avatar } } } }`;

describe("restaurant by id", () => {
  it("reads the restaurant, its owner with rating and its latest comment with author in one statement", async () => {
    for (const id of [restaurantIds[5], bare]) {
      const { data, sql } = await run(BY_ID, { id });
      expect(data.restaurant).toEqual(await expected(id));
      expect(sql, sql.join("\n")).toHaveLength(1);
    }
  });

  it("never reads a password hash", async () => {
    const { sql } = await run(BY_ID, { id: restaurantIds[5] });
    expect(sql.join("\n")).not.toMatch(/passwordHash/);
  });

  it("follows fragments, aliases and @skip / @include", async () => {
    const query = `query($id: ID!, $no: Boolean!) { restaurant(id: $id) { ...R } }
      fragment R on Restaurant { id boss: owner { username } ... on Restaurant { latestComment @include(if: $no) { title } } }`;
    const skipped = await run(query, { id: restaurantIds[1], no: false });
    expect(skipped.sql).toHaveLength(1);
    expect(skipped.sql[0]).not.toMatch(/"Comment"/);
    expect(skipped.data.restaurant.boss.username).toBe("owner1");
    const included = await run(query, { id: restaurantIds[1], no: true });
    expect(included.sql).toHaveLength(1);
    expect(included.data.restaurant.latestComment.title).toBe("c1 on 1");
  });

  it("a restaurant asked for its own columns only reads no other table", async () => {
    const { sql } = await run(`query($id: ID!) { restaurant(id: $id) { title } }`, { id: restaurantIds[2] });
    expect(sql).toHaveLength(1);
    expect(sql[0]).not.toMatch(/JOIN/);
  });

  it("selections a client varies without end (more combinations than are kept) still answer right and batch", async () => {
    const fields = [
      "title",
      "rating",
      "commentCount",
      "createdAt",
      "updatedAt",
      "viewerCanEdit",
      "description",
      "logo",
    ];
    // 2^8 column combinations, each with the owner asked: well past the 64 loaders kept.
    for (let mask = 0; mask < 100; mask++) {
      const picked = fields.filter((_, i) => mask & (1 << i));
      const { data } = await run(
        `query($id: ID!) { restaurant(id: $id) { id owner { username } ${picked.join(" ")} } }`,
        { id: restaurantIds[mask % 12] },
      );
      expect(Object.keys(data.restaurant).sort()).toEqual(["id", "owner", ...picked].sort());
      expect(data.restaurant.owner.username).toBe(`owner${(mask % 12) % 3}`);
    }
    const { data, sql } = await run(
      `query($a: ID!, $b: ID!) { a: restaurant(id: $a) { title owner { username } } b: restaurant(id: $b) { title owner { username } } }`,
      { a: restaurantIds[0], b: restaurantIds[1] },
    );
    expect(data).toEqual({
      a: { title: "Place 00", owner: { username: "owner0" } },
      b: { title: "Place 01", owner: { username: "owner1" } },
    });
    expect(sql).toHaveLength(1);
  });

  it("several restaurants by id share one statement; unknown and impossible ids answer as before", async () => {
    const { data, sql } = await run(
      `query($a: ID!, $b: ID!, $c: ID!) { a: restaurant(id: $a) { owner { username } } b: restaurant(id: $b) { owner { username } } c: restaurant(id: $c) { owner { username } } }`,
      { a: restaurantIds[0], b: restaurantIds[1], c: "nope" },
    );
    expect(data).toEqual({ a: { owner: { username: "owner0" } }, b: { owner: { username: "owner1" } }, c: null });
    expect(sql).toHaveLength(1);
    const bad = await s.graphql(
      `query($id: ID!) { restaurant(id: $id) { owner { username } } }`,
      { id: "a\u0000b" },
      token,
    );
    expect(bad.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
  });
});

const PAGE = `query($first: Int, $offset: Int) { restaurants(first: $first, offset: $offset) { totalCount pageInfo { hasNextPage endCursor }
  nodes { id title rating owner { id username firstName avatar rating } latestComment { id title rating createdAt author { id username avatar } } } } }`;

describe("a page of restaurants", () => {
  it("reads the page with owners, owners' ratings, latest comments and the total in one statement, newest first", async () => {
    const { data, sql } = await run(PAGE, { first: 5, offset: 2 });
    expect(sql, sql.join("\n")).toHaveLength(1);
    expect(data.restaurants.totalCount).toBe(12);
    expect(data.restaurants.pageInfo.hasNextPage).toBe(true);
    const newestFirst = [...restaurantIds].reverse().slice(2, 7);
    expect(data.restaurants.nodes).toEqual(await Promise.all(newestFirst.map(expected)));
  });

  it("edges { node } asks the same as nodes; the total is not read unless selected", async () => {
    const { data, sql } = await run(`{ restaurants(first: 3) { edges { node { title owner { username } } } } }`);
    expect(sql).toHaveLength(1);
    expect(sql[0]).not.toMatch(/COUNT\(/i);
    expect(data.restaurants.edges.map((e: any) => e.node.owner.username)).toEqual(["owner2", "owner1", "owner0"]);
  });

  it("a page past the end still answers the total (counted on its own)", async () => {
    const { data, sql } = await run(PAGE, { first: 5, offset: 20 });
    expect(data.restaurants).toEqual({ totalCount: 12, pageInfo: { hasNextPage: false, endCursor: null }, nodes: [] });
    expect(sql).toHaveLength(2);
  });
});

/** Every field of a type: leaves as they are, objects with their subfields (leaves only, one level down). */
function everyField(type: GraphQLObjectType, leavesOnly = false): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, field] of Object.entries(type.getFields())) {
    const named = getNamedType(field.type);
    if (isLeafType(named)) fields[name] = name;
    else if (!leavesOnly && isObjectType(named))
      fields[name] = `${name} { __typename ${Object.values(everyField(named, true)).join(" ")} }`;
  }
  return fields;
}

describe("a restaurant read reads only the columns its selection shows", () => {
  it("each Restaurant field alone answers, on a page and by id, as on a whole row, and no column it does not show is read", async () => {
    // One restaurant with every column set, so a column left unread would show as null.
    const full = await s.db.prisma.restaurant.create({
      data: {
        title: "Full",
        titleSearch: "full",
        description: "All of it",
        logo: "l.png",
        cover: "c.png",
        url: "https://full.example",
        acceptsReservations: true,
        starRating: 4.5,
        canHomeDeliver: true,
        email: "f@example.com",
        phone: "+91 1",
        website: "https://w.example",
        addressLine1: "1 Road",
        addressLine2: "Floor 2",
        landmark: "Tower",
        state: "MH",
        city: "Pune",
        citySearch: "pune",
        district: "Kothrud",
        country: "IN",
        latitude: 18.5,
        longitude: 73.8,
        ratingSum: 9,
        ratingCount: 2,
        ratingAvg: 4.5,
        ownerId: (await s.db.prisma.user.findFirstOrThrow()).id,
        comments: {
          create: { authorId: (await s.db.prisma.user.findFirstOrThrow()).id, title: "t", body: "b", rating: 4 },
        },
      },
    });
    const schema = buildSchema(readFileSync("schema.graphql", "utf8"));
    const fields = everyField(schema.getType("Restaurant") as GraphQLObjectType);
    expect(Object.keys(fields).length).toBeGreaterThan(25);
    const ids = (
      (await run(`{ restaurants(first: 20) { nodes { id } } }`)).data.restaurants.nodes as { id: string }[]
    ).map((n) => n.id);
    expect(ids).toContain(full.id);
    // Every field at once: whole rows, the reference.
    const byIds = (selection: string) =>
      `{ ${ids.map((id, i) => `r${i}: restaurant(id: "${id}") { id ${selection} }`).join(" ")} }`;
    const whole = (await run(byIds(Object.values(fields).join(" ")))).data;
    for (const [name, selection] of Object.entries(fields)) {
      const expected = ids.map((id, i) => ({ id, [name]: whole[`r${i}`][name] }));
      const { data, sql } = await run(`{ restaurants(first: 20) { nodes { id ${selection} } } }`);
      expect(data.restaurants.nodes, `page: ${name}`).toEqual(expected);
      // The page's own statement reads the description only when it is shown.
      expect(/"Restaurant"\."description"/.test(sql[0]), name).toBe(name === "description");
      // By id, with a relation asked (the look-ahead path): the same.
      const byId = (await run(byIds(`owner { id } ${selection}`))).data;
      expect(
        ids.map((id, i) => ({ id, [name]: byId[`r${i}`][name] })),
        `by id: ${name}`,
      ).toEqual(expected);
    }

    // Each field of the address and of the owner alone: only its own columns are read, and the
    // answer is the whole row's. Addresses given in part decide whether the address is null.
    const partial = [
      { latitude: 1.5, longitude: 2.5 }, // coordinates only: an address with geo and no text
      { latitude: 1.5 }, // one coordinate: no address
      { addressLine1: "", landmark: "Clock" }, // "" is not given, the landmark is
      { addressLine2: "", city: "" }, // nothing given: no address
      { country: "FR" },
    ];
    const ownerId = (await s.db.prisma.user.findFirstOrThrow({ where: { avatar: { not: null } } })).id;
    for (const [i, address] of partial.entries()) {
      const r = await s.db.prisma.restaurant.create({
        data: { title: `Partial ${i}`, titleSearch: `partial ${i}`, ownerId, ...address },
      });
      ids.push(r.id);
    }
    const pageOf = (selection: string) => `{ restaurants(first: ${ids.length}) { nodes { id ${selection} } } }`;
    expect(((await run(pageOf(""))).data.restaurants.nodes as { id: string }[]).map((n) => n.id).sort()).toEqual(
      [...ids].sort(),
    );
    const parts = {
      address: [
        "addressLine1",
        "addressLine2",
        "landmark",
        "state",
        "city",
        "district",
        "country",
        "geo { latitude longitude }",
        "__typename",
      ],
      owner: ["id", "username", "firstName", "avatar", "role", "rating", "createdAt", "__typename"],
    };
    // The reference: every column of the restaurant, so whole rows.
    const everything = `${Object.values(fields).join(" ")} ${Object.entries(parts)
      .map(([field, subfields]) => `${field} { ${subfields.join(" ")} }`)
      .join(" ")}`;
    const wholeRows = (await run(byIds(everything))).data;
    const reads = (sql: string, column: string) => new RegExp(`\\."${column}" AS`).test(sql);
    for (const [field, subfields] of Object.entries(parts)) {
      for (const subfield of subfields) {
        const name = subfield.split(" ")[0];
        const project = (value: Record<string, unknown> | null) =>
          value && { [name]: name === "geo" ? value.geo : value[name] };
        const expected = ids.map((id, i) => ({ id, [field]: project(wholeRows[`r${i}`][field]) }));
        const { data, sql } = await run(pageOf(`${field} { ${subfield} }`));
        const byId = new Map((data.restaurants.nodes as { id: string }[]).map((n) => [n.id, n]));
        expect(
          ids.map((id) => byId.get(id)),
          `page: ${field} { ${subfield} }`,
        ).toEqual(expected);
        // No column of the address or of the owner beyond the one shown (and the ids).
        const shown = name === "geo" ? ["latitude", "longitude"] : [name === "rating" ? "ratingAvg" : name];
        const others =
          field === "address"
            ? ["addressLine1", "city", "country", "latitude"]
            : ["username", "firstName", "avatar", "role", "createdAt"];
        for (const column of others.filter((c) => !shown.includes(c)))
          expect(reads(sql[0], column), `${field} { ${subfield} } reads ${column}`).toBe(false);
        const one = (await run(byIds(`latestComment { id } ${field} { ${subfield} }`))).data;
        expect(
          ids.map((id, i) => ({ id, [field]: one[`r${i}`][field] })),
          `by id: ${field} { ${subfield} }`,
        ).toEqual(expected);
      }
    }
  });

  it("an owner shown in part on one field and whole on another answers both right", async () => {
    const id = restaurantIds[4];
    const { data } = await run(
      `query($id: ID!) { a: restaurant(id: $id) { owner { username } } b: restaurant(id: $id) { owner { firstName avatar createdAt } }
        restaurants(first: 20) { nodes { id owner { id } } } }`,
      { id },
    );
    const owner = (await s.db.prisma.restaurant.findUniqueOrThrow({ where: { id }, include: { owner: true } })).owner;
    expect(data.a.owner).toEqual({ username: owner.username });
    expect(data.b.owner).toEqual({
      firstName: owner.firstName,
      avatar: owner.avatar,
      createdAt: owner.createdAt.toISOString(),
    });
  });
});
