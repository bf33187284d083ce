// What the bench sends. Each scenario is a list of requests that every connection cycles
// through (different restaurants, search terms and users' tokens, in a fixed order), plus a
// check run once before the load that the answer is what it should be.
// The REST routes are compared with GraphQL requests carrying the very document the shim runs
// (read from the route table), so the ratio measures the shim and nothing else.
import { createHash } from "node:crypto";
import type { Request } from "autocannon";
import { routes } from "../src/rest/routes/index.ts";
import { searchKey } from "../src/domain/catalogue/string-lists.ts";
import { createRandom } from "../src/seed/random.ts";
import { CITIES } from "../src/seed/vocabulary.ts";
import { UNIQUE, withUnique } from "./paced.ts";

export type Target = "server" | "constant-apollo" | "raw-driver" | "postgraphile";

export type Scenario = {
  key: string;
  label: string;
  api: "graphql" | "rest" | "baseline" | "peer";
  target: Target;
  /** Reads have the p99 latency target; writes change data, so they run after the reads. */
  kind: "read" | "write";
  requests: Request[];
  /** Why the first answer is wrong, or null when it is right. */
  check(status: number, body: unknown): string | null;
  /** Sent once before the check (e.g. the texts persisted GETs name by hash, registered). */
  prepare?: Request[];
  /** For a REST scenario: the GraphQL scenario running the same document. */
  sameAs?: string;
  /** For a peer scenario: the service's scenario that reads the same data. */
  peerOf?: string;
};

export type ScenarioContext = {
  restaurantIds: string[];
  tokens: string[];
  /** The ids of the users the tokens belong to, in the same order (the peer's writes name their author). */
  userIds: string[];
  groceryTitles: string[];
  /** Restaurants given thousands of comments after the seed (deep-comments.ts): the deep pages. */
  deepCommentRestaurants: { id: string; comments: number }[];
  /** The seed's own most commented restaurants (deep-comments.ts), most first. */
  mostCommentedSeedRestaurants: { id: string; comments: number }[];
};

/** How many distinct requests each scenario cycles through. */
const ROTATION = 64;
const PAGE = 50;
const COMMENTS_PER_PAGE = 20;
const SEARCH_PAGE = 20;

export const RESTAURANT_BY_ID = `query RestaurantById($id: ID!) {
  restaurant(id: $id) {
    id title rating commentCount
    owner { id username firstName avatar }
    latestComment { id title body rating createdAt author { id username firstName } }
  }
}`;

/** RESTAURANT_BY_ID's selection as Relay refetches it: through node(id:), on a fragment of Restaurant. */
export const RESTAURANT_NODE = `query RestaurantNode($id: ID!) {
  node(id: $id) {
    __typename id
    ... on Restaurant {
      title rating commentCount
      owner { id username firstName avatar }
      latestComment { id title body rating createdAt author { id username firstName } }
    }
  }
}`;

export const RESTAURANTS_PAGE = `query RestaurantsPage($first: Int) {
  restaurants(first: $first) {
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes { id title rating commentCount address { city district } owner { id username firstName } }
  }
}`;

/**
 * What a federation gateway sends this service for restaurants another subgraph pointed at: a
 * batch of representations, with the fields of RESTAURANTS_PAGE's items (FEDERATION_SUBGRAPH).
 */
export const RESTAURANT_ENTITIES = `query($representations: [_Any!]!) {
  _entities(representations: $representations) {
    ... on Restaurant { id title rating commentCount address { city district } owner { id username firstName } }
  }
}`;

/**
 * A page of a restaurant's comments with their authors, as a frontend pages through them (page 1
 * of most restaurants, deep pages of the few with thousands).
 */
export const COMMENTS_PAGE = `query CommentsPage($id: ID!, $offset: Int) {
  restaurant(id: $id) {
    id
    comments(first: ${COMMENTS_PER_PAGE}, offset: $offset) {
      totalCount
      pageInfo { hasNextPage }
      nodes { id title body rating createdAt author { id username firstName } }
    }
  }
}`;

/** Search by cuisine and city, best rated first: what a frontend's filtered list sends. */
export const FILTERED_SEARCH = `query FilteredSearch($cuisine: String!, $city: String!) {
  restaurants(filter: { cuisine: $cuisine, city: $city }, sort: RATING, first: ${SEARCH_PAGE}) {
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes { id title rating commentCount address { city district } owner { id username firstName } }
  }
}`;

// The peer's documents (PostGraphile 5, Amber preset: issue 16's field names), selecting the same
// columns as the two documents above so both sides read and send the same data. The service's
// `restaurants` sorts NEWEST (createdAt descending, then id) by default, as these do.
export const PEER_RESTAURANT_BY_ID = `query RestaurantById($rowId: String!) {
  restaurantByRowId(rowId: $rowId) {
    rowId title ratingAvg ratingCount
    userByOwnerId { rowId username firstName avatar }
    commentsByRestaurantId(first: 1, orderBy: CREATED_AT_DESC) {
      nodes { rowId title body rating createdAt userByAuthorId { rowId username firstName } }
    }
  }
}`;

export const PEER_RESTAURANTS_PAGE = `query RestaurantsPage($first: Int) {
  allRestaurants(first: $first, orderBy: [CREATED_AT_DESC, PRIMARY_KEY_ASC]) {
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes { rowId title ratingAvg ratingCount city district userByOwnerId { rowId username firstName } }
  }
}`;

/**
 * The REST detail's data (the LegacyRestaurantDetail fragment) through PostGraphile's generated
 * schema: the restaurant's columns, its tag, hours, photo and badge collections, its newest comment
 * with its author. A user's \`rating\` (this service's mean over the restaurants the user owns) has
 * no generated field: the peer reads those restaurants' sums instead (\`restaurantsByOwnerId\`),
 * which is what a PostGraphile client would have to do. Badges come in primary-key order (the
 * grant time has no index, so no generated order): the same rows.
 */
export const PEER_DETAIL = `query Detail($rowId: String!) {
  restaurantByRowId(rowId: $rowId) {
    rowId title logo url acceptsReservations starRating canHomeDeliver email phone website
    addressLine1 addressLine2 landmark state city district country latitude longitude
    userByOwnerId { rowId username firstName avatar restaurantsByOwnerId { nodes { ratingSum ratingCount } } }
    restaurantTagsByRestaurantId(orderBy: PRIMARY_KEY_ASC) { nodes { kind value } }
    openingHoursByRestaurantId(orderBy: PRIMARY_KEY_ASC) { nodes { open close } }
    restaurantPhotosByRestaurantId(orderBy: PRIMARY_KEY_ASC) { nodes { url } }
    restaurantBadgesByRestaurantId(orderBy: PRIMARY_KEY_ASC) { nodes { receivedAt badgeByBadgeId { rowId name cover } } }
    commentsByRestaurantId(first: 1, orderBy: [CREATED_AT_DESC, PRIMARY_KEY_DESC]) {
      nodes { body rating userByAuthorId { rowId username firstName avatar restaurantsByOwnerId { nodes { ratingSum ratingCount } } } }
    }
  }
}`;

export const PEER_COMMENTS_PAGE = `query CommentsPage($rowId: String!, $offset: Int) {
  restaurantByRowId(rowId: $rowId) {
    rowId
    commentsByRestaurantId(first: ${COMMENTS_PER_PAGE}, offset: $offset, orderBy: [CREATED_AT_DESC, PRIMARY_KEY_DESC]) {
      totalCount
      pageInfo { hasNextPage }
      nodes { rowId title body rating createdAt userByAuthorId { rowId username firstName } }
    }
  }
}`;

/**
 * The filtered search through PostGraphile: the city is a column (\`condition\`), a cuisine a
 * related tag row (postgraphile-plugin-connection-filter's \`some\`), both as lower-cased keys as
 * this service compares them. Its RATING_AVG_DESC puts unrated restaurants first (PostgreSQL's
 * DESC), this service last: the same number of rows either way.
 */
export const PEER_FILTERED_SEARCH = `query FilteredSearch($cuisine: String!, $city: String!) {
  allRestaurants(
    first: ${SEARCH_PAGE}
    orderBy: [RATING_AVG_DESC, PRIMARY_KEY_ASC]
    condition: { citySearch: $city }
    filter: { restaurantTagsByRestaurantId: { some: { kind: { equalTo: CUISINE }, valueKey: { equalTo: $cuisine } } } }
  ) {
    totalCount
    pageInfo { hasNextPage endCursor }
    nodes { rowId title ratingAvg ratingCount city district userByOwnerId { rowId username firstName } }
  }
}`;

/**
 * PostGraphile's generated insert. It inserts the row and answers it, and that is all: no
 * sign-in (the client names the author), no check of the rating (1 to 5) or of the text's
 * length, the restaurant's rating totals left as they were, no event for subscribers. The
 * comment's id has no database default (Prisma makes it): the bench sends a unique one.
 */
export const PEER_CREATE_COMMENT = `mutation CreateComment($comment: CommentInput!) {
  createComment(input: { comment: $comment }) {
    comment { rowId title body rating userByAuthorId { rowId username firstName } }
  }
}`;

function routeDocument(method: string, path: string): string {
  const route = routes.find((r) => r.method === method && r.path === path && !r.when);
  if (!route) throw new Error(`no REST route ${method} ${path} in the route table`);
  return route.document;
}

const json = { "content-type": "application/json" };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export function graphqlRequest(document: string, variables: Record<string, unknown>, token: string): Request {
  return {
    method: "POST",
    path: "/graphql",
    headers: { ...json, ...bearer(token) },
    body: JSON.stringify({ query: document, variables }),
  };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const persistedQuery = (document: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256(document) } });

/** The text with its hash, by POST: what an automatic-persisted-queries client sends once, to register it. */
function registerRequest(document: string, variables: Record<string, unknown>, token: string): Request {
  return {
    method: "POST",
    path: "/graphql",
    headers: { ...json, ...bearer(token) },
    body: JSON.stringify({ query: document, variables, extensions: persistedQuery(document) }),
  };
}

/**
 * The hash alone, by GET (Apollo Client's useGETForHashedQueries, urql's default): the request a
 * cache in front can keep. The token's Authorization header passes CSRF prevention.
 */
function persistedGet(document: string, variables: Record<string, unknown>, token: string): Request {
  const search = new URLSearchParams({
    variables: JSON.stringify(variables),
    extensions: JSON.stringify(persistedQuery(document)),
  });
  return { method: "GET", path: `/graphql?${search}`, headers: bearer(token) };
}

/** A fixed sequence of picks, the same on every run. */
function rotation<T>(name: string, make: (i: number, rng: ReturnType<typeof createRandom>) => T): T[] {
  const rng = createRandom(`bench:${name}`);
  return Array.from({ length: ROTATION }, (_, i) => make(i, rng));
}

const checkGraphql =
  (field: string, nonEmptyList = false) =>
  (status: number, body: any): string | null => {
    if (status !== 200) return `status ${status}: ${JSON.stringify(body).slice(0, 300)}`;
    if (body?.errors) return `errors: ${JSON.stringify(body.errors).slice(0, 300)}`;
    const value = body?.data?.[field];
    if (value == null) return `data.${field} is null`;
    if (nonEmptyList && !(value.nodes?.length > 0)) return `data.${field}.nodes is empty`;
    return null;
  };

const checkRest =
  (expected: number, nonEmptyList = false) =>
  (status: number, body: any): string | null => {
    if (status !== expected) return `status ${status} (expected ${expected}): ${JSON.stringify(body).slice(0, 300)}`;
    if (nonEmptyList && !(Array.isArray(body) && body.length > 0)) return "expected a non-empty array";
    return null;
  };

export function buildScenarios(ctx: ScenarioContext): Scenario[] {
  const token = (i: number) => ctx.tokens[i % ctx.tokens.length]!;
  const ids = rotation("restaurants", (_, rng) => rng.pick(ctx.restaurantIds));
  const titles = rotation("titles", (i) => ctx.groceryTitles[i % ctx.groceryTitles.length]!);
  const comments = rotation("comments", (i, rng) => ({
    title: "Bench visit",
    body: `Load-test comment ${i}: the dish of the day was fine.`,
    rating: rng.int(1, 5),
  }));

  const commentPages = commentPageRotation(ctx);
  const topPages = topCommentPageRotations(ctx);
  const searches = rotation("cuisine-city", (_, rng) => {
    const city = rng.pick(CITIES);
    return { city: city.name, cuisine: rng.pick(city.localCuisines) };
  });

  const getRestaurant = routeDocument("GET", "/restaurants/:restaurant_id");
  const searchRestaurants = routeDocument("GET", "/restaurants");
  const searchGroceries = routeDocument("GET", "/groceries");
  const commentRestaurant = routeDocument("PUT", "/restaurants/:restaurant_id/comments");

  return [
    {
      key: "gql.restaurant",
      label: "GraphQL restaurant by id (owner, rating, latest comment)",
      api: "graphql",
      target: "server",
      kind: "read",
      requests: ids.map((id, i) => graphqlRequest(RESTAURANT_BY_ID, { id }, token(i))),
      check: checkGraphql("restaurant"),
    },
    {
      key: "gql.restaurant.persisted-get",
      label: "GraphQL restaurant by id as a persisted GET (the hash alone, no HTTP cache in front)",
      api: "graphql",
      target: "server",
      kind: "read",
      prepare: [registerRequest(RESTAURANT_BY_ID, { id: ids[0] }, token(0))],
      requests: ids.map((id, i) => persistedGet(RESTAURANT_BY_ID, { id }, token(i))),
      check: checkGraphql("restaurant"),
    },
    {
      key: "gql.node",
      label: "GraphQL restaurant by node(id:) (a Relay refetch of gql.restaurant's selection)",
      api: "graphql",
      target: "server",
      kind: "read",
      requests: ids.map((id, i) => graphqlRequest(RESTAURANT_NODE, { id }, token(i))),
      check: checkGraphql("node"),
    },
    {
      key: "gql.restaurant.rest-doc",
      label: "GraphQL restaurant detail (the REST shim's document: tags, hours, photos, badges, latest comment)",
      api: "graphql",
      target: "server",
      kind: "read",
      requests: ids.map((id, i) => graphqlRequest(getRestaurant, { id }, token(i))),
      check: checkGraphql("restaurant"),
    },
    {
      key: "rest.restaurant",
      label: "REST GET /restaurants/:id",
      api: "rest",
      target: "server",
      kind: "read",
      sameAs: "gql.restaurant.rest-doc",
      requests: ids.map((id, i) => ({
        method: "GET",
        path: `/restaurants/${encodeURIComponent(id)}`,
        headers: bearer(token(i)),
      })),
      check: checkRest(200),
    },
    {
      key: "gql.search",
      label: `GraphQL restaurants page of ${PAGE} (owner, rating)`,
      api: "graphql",
      target: "server",
      kind: "read",
      requests: ids.map((_, i) => graphqlRequest(RESTAURANTS_PAGE, { first: PAGE }, token(i))),
      check: checkGraphql("restaurants", true),
    },
    {
      key: "gql.search.persisted-get",
      label: `GraphQL restaurants page of ${PAGE} as a persisted GET (the hash alone, no HTTP cache in front)`,
      api: "graphql",
      target: "server",
      kind: "read",
      prepare: [registerRequest(RESTAURANTS_PAGE, { first: PAGE }, token(0))],
      requests: ids.map((_, i) => persistedGet(RESTAURANTS_PAGE, { first: PAGE }, token(i))),
      check: checkGraphql("restaurants", true),
    },
    {
      key: "gql.search.rest-doc",
      label: `GraphQL restaurants page of ${PAGE} (the REST shim's document)`,
      api: "graphql",
      target: "server",
      kind: "read",
      requests: ids.map((_, i) => graphqlRequest(searchRestaurants, { first: PAGE }, token(i))),
      check: checkGraphql("restaurants", true),
    },
    {
      key: "rest.search",
      label: `REST GET /restaurants?limit=${PAGE}`,
      api: "rest",
      target: "server",
      kind: "read",
      sameAs: "gql.search.rest-doc",
      requests: ids.map((_, i) => ({ method: "GET", path: `/restaurants?limit=${PAGE}`, headers: bearer(token(i)) })),
      check: checkRest(200, true),
    },
    {
      key: "gql.entities",
      label: `GraphQL _entities: ${PAGE} restaurant representations, as a gateway sends (the page's fields)`,
      api: "graphql",
      target: "server",
      kind: "read",
      requests: rotation("entities", (_, rng) =>
        Array.from({ length: PAGE }, () => ({ __typename: "Restaurant", id: rng.pick(ctx.restaurantIds) })),
      ).map((representations, i) => graphqlRequest(RESTAURANT_ENTITIES, { representations }, token(i))),
      check: checkGraphql("_entities"),
    },
    {
      key: "gql.comments",
      label: `GraphQL ${COMMENTS_PER_PAGE} comments of a restaurant with authors (deep pages too)`,
      api: "graphql",
      target: "server",
      kind: "read",
      requests: commentPages.map(({ id, offset }, i) => graphqlRequest(COMMENTS_PAGE, { id, offset }, token(i))),
      check: checkGraphql("restaurant"),
    },
    ...topPages.map(({ key, label, pages }) => ({
      key: `gql.${key}`,
      label: `GraphQL ${COMMENTS_PER_PAGE} comments with authors of ${label}`,
      api: "graphql" as const,
      target: "server" as const,
      kind: "read" as const,
      requests: pages.map(({ id, offset }, i) => graphqlRequest(COMMENTS_PAGE, { id, offset }, token(i))),
      check: checkGraphql("restaurant"),
    })),
    {
      key: "gql.search.filtered",
      label: `GraphQL search by cuisine and city, by rating, page of ${SEARCH_PAGE}`,
      api: "graphql",
      target: "server",
      kind: "read",
      requests: searches.map((s, i) => graphqlRequest(FILTERED_SEARCH, s, token(i))),
      check: checkGraphql("restaurants", true),
    },
    {
      key: "gql.groceries",
      label: "GraphQL groceries by title",
      api: "graphql",
      target: "server",
      kind: "read",
      requests: titles.map((title, i) => graphqlRequest(searchGroceries, { filter: { title }, first: 20 }, token(i))),
      check: checkGraphql("groceries", true),
    },
    {
      key: "rest.groceries",
      label: "REST GET /groceries?title=",
      api: "rest",
      target: "server",
      kind: "read",
      sameAs: "gql.groceries",
      requests: titles.map((title, i) => ({
        method: "GET",
        path: `/groceries?title=${encodeURIComponent(title)}`,
        headers: bearer(token(i)),
      })),
      check: checkRest(200, true),
    },
    {
      key: "gql.comment",
      label: "GraphQL addComment (rating totals updated, event published)",
      api: "graphql",
      target: "server",
      kind: "write",
      requests: ids.map((restaurantId, i) =>
        graphqlRequest(commentRestaurant, { restaurantId, input: comments[i] }, token(i)),
      ),
      check: checkGraphql("addComment"),
    },
    {
      key: "rest.comment",
      label: "REST PUT /restaurants/:id/comments",
      api: "rest",
      target: "server",
      kind: "write",
      sameAs: "gql.comment",
      requests: ids.map((id, i) => ({
        method: "PUT",
        path: `/restaurants/${encodeURIComponent(id)}/comments`,
        headers: { ...json, ...bearer(token(i)) },
        body: JSON.stringify(comments[i]),
      })),
      check: checkRest(201),
    },
  ];
}

/** The GraphQL layer's ceiling: the restaurant-by-id document against constant resolvers. */
export function constantApolloScenario(ctx: ScenarioContext): Scenario {
  const ids = rotation("restaurants", (_, rng) => rng.pick(ctx.restaurantIds));
  return {
    key: "baseline.constant-apollo",
    label: "Baseline: Apollo + Fastify, constant resolvers (ceiling)",
    api: "baseline",
    target: "constant-apollo",
    kind: "read",
    requests: ids.map((id) => graphqlRequest(RESTAURANT_BY_ID, { id }, "none")),
    check: checkGraphql("restaurant"),
  };
}

/** The floor of the work: one row by primary key through the bare driver. */
export function rawDriverScenario(ctx: ScenarioContext): Scenario {
  const ids = rotation("restaurants", (_, rng) => rng.pick(ctx.restaurantIds));
  return {
    key: "baseline.raw-driver",
    label: "Baseline: node:http + driver, one row (floor)",
    api: "baseline",
    target: "raw-driver",
    kind: "read",
    requests: ids.map((id) => ({ method: "GET", path: `/restaurants/${encodeURIComponent(id)}` })),
    check: (status, body: any) =>
      status === 200 && body?.id ? null : `status ${status}: ${JSON.stringify(body).slice(0, 200)}`,
  };
}

/**
 * The peer baseline (PostGraphile, no authentication: it has none configured), one scenario per
 * service scenario it is compared with, cycling through the same restaurants.
 */
export function peerScenarios(ctx: ScenarioContext): Scenario[] {
  const ids = rotation("restaurants", (_, rng) => rng.pick(ctx.restaurantIds));
  const commentPages = commentPageRotation(ctx);
  const topPages = topCommentPageRotations(ctx);
  const searches = rotation("cuisine-city", (_, rng) => {
    const city = rng.pick(CITIES);
    return { city: searchKey(city.name), cuisine: searchKey(rng.pick(city.localCuisines)) };
  });
  const comments = rotation("comments", (i, rng) => ({
    title: "Bench visit",
    body: `Load-test comment ${i}: the dish of the day was fine.`,
    rating: rng.int(1, 5),
  }));
  const request = (query: string, variables: Record<string, unknown>): Request => ({
    method: "POST",
    path: "/graphql",
    headers: json,
    body: JSON.stringify({ query, variables }),
  });
  return [
    {
      key: "peer.restaurant",
      label: "PostGraphile restaurantByRowId (owner, rating, latest comment)",
      api: "peer",
      target: "postgraphile",
      kind: "read",
      peerOf: "gql.restaurant",
      requests: ids.map((rowId) => request(PEER_RESTAURANT_BY_ID, { rowId })),
      check: checkGraphql("restaurantByRowId"),
    },
    {
      key: "peer.search",
      label: `PostGraphile allRestaurants page of ${PAGE} (owner, rating)`,
      api: "peer",
      target: "postgraphile",
      kind: "read",
      peerOf: "gql.search",
      requests: ids.map(() => request(PEER_RESTAURANTS_PAGE, { first: PAGE })),
      check: checkGraphql("allRestaurants", true),
    },
    {
      key: "peer.detail",
      label: "PostGraphile restaurantByRowId with its collections (the REST detail's data)",
      api: "peer",
      target: "postgraphile",
      kind: "read",
      peerOf: "gql.restaurant.rest-doc",
      requests: ids.map((rowId) => request(PEER_DETAIL, { rowId })),
      check: checkGraphql("restaurantByRowId"),
    },
    {
      key: "peer.comments",
      label: `PostGraphile commentsByRestaurantId page of ${COMMENTS_PER_PAGE} with userByAuthorId`,
      api: "peer",
      target: "postgraphile",
      kind: "read",
      peerOf: "gql.comments",
      requests: commentPages.map(({ id, offset }) => request(PEER_COMMENTS_PAGE, { rowId: id, offset })),
      check: checkGraphql("restaurantByRowId"),
    },
    ...topPages.map(({ key, label, pages }) => ({
      key: `peer.${key}`,
      label: `PostGraphile commentsByRestaurantId page of ${COMMENTS_PER_PAGE} with userByAuthorId of ${label}`,
      api: "peer" as const,
      target: "postgraphile" as const,
      kind: "read" as const,
      peerOf: `gql.${key}`,
      requests: pages.map(({ id, offset }) => request(PEER_COMMENTS_PAGE, { rowId: id, offset })),
      check: checkGraphql("restaurantByRowId"),
    })),
    {
      key: "peer.search.filtered",
      label: `PostGraphile allRestaurants by cuisine (filter plugin) and city, RATING_AVG_DESC, page of ${SEARCH_PAGE}`,
      api: "peer",
      target: "postgraphile",
      kind: "read",
      peerOf: "gql.search.filtered",
      requests: searches.map((s) => request(PEER_FILTERED_SEARCH, s)),
      check: checkGraphql("allRestaurants", true),
    },
    {
      key: "peer.comment",
      label: "PostGraphile createComment (the row alone: no auth, checks, totals or event)",
      api: "peer",
      target: "postgraphile",
      kind: "write",
      peerOf: "gql.comment",
      requests: ids.map((restaurantId, i) =>
        request(PEER_CREATE_COMMENT, {
          comment: {
            rowId: `bench-${UNIQUE}`,
            restaurantId,
            authorId: ctx.userIds[i % ctx.userIds.length],
            ...comments[i],
          },
        }),
      ),
      check: (status, body: any) => checkGraphql("createComment")(status, body),
    },
  ];
}

/**
 * Which comment pages the comment scenarios ask for, the same for this service and the peer: the
 * first page of a random restaurant for half the requests, and pages of the restaurants with
 * thousands of comments at offsets spread down to the last page for the other half.
 */
function commentPageRotation(ctx: ScenarioContext): { id: string; offset: number }[] {
  return rotation("comment-pages", (i, rng) => {
    const deep = ctx.deepCommentRestaurants[Math.floor(i / 2) % Math.max(1, ctx.deepCommentRestaurants.length)];
    if (i % 2 === 0 || !deep) return { id: rng.pick(ctx.restaurantIds), offset: 0 };
    const lastPage = Math.floor((deep.comments - 1) / COMMENTS_PER_PAGE);
    return { id: deep.id, offset: rng.int(0, lastPage) * COMMENTS_PER_PAGE };
  });
}

/**
 * The pages a client reads most on a busy restaurant (what the independent comparison of issue 48
 * measured): the first pages of the restaurants with the most comments, at offsets 0, 40 and 100.
 * Twice: on the bench's restaurants with thousands of comments, and on the seed's own most
 * commented (30 comments on the `large` seed: offsets 40 and 100 are past the end, empty pages
 * that still show the total).
 */
const TOP_COMMENT_OFFSETS = [0, 40, 100];

function topCommentPageRotations(ctx: ScenarioContext) {
  const pagesOf = (name: string, top: { id: string }[]) =>
    rotation(name, (i) => ({
      id: top[i % top.length]!.id,
      offset: TOP_COMMENT_OFFSETS[Math.floor(i / top.length) % TOP_COMMENT_OFFSETS.length]!,
    }));
  const offsets = `offsets ${TOP_COMMENT_OFFSETS.join(", ")}`;
  const deepest = ctx.deepCommentRestaurants[0]?.comments ?? 0;
  const seedMost = ctx.mostCommentedSeedRestaurants[0]?.comments ?? 0;
  return [
    {
      key: "comments.top",
      label: `the ${deepest.toLocaleString("en")}-comment restaurants, ${offsets}`,
      top: ctx.deepCommentRestaurants,
    },
    {
      key: "comments.top-seed",
      label: `the seed's most commented (${seedMost}), ${offsets}`,
      top: ctx.mostCommentedSeedRestaurants,
    },
  ]
    .filter(({ top }) => top.length > 0)
    .map(({ key, label, top }) => ({ key, label, pages: pagesOf(`${key}-pages`, top) }));
}

/** Sends a scenario's preparation, then its first request once, and returns why its answer is wrong, or null. */
export async function preflight(baseUrl: string, scenario: Scenario): Promise<string | null> {
  for (const p of scenario.prepare ?? []) {
    const res = await fetch(baseUrl + p.path, { method: p.method, headers: p.headers, body: p.body });
    if (!res.ok) return `preparation answered ${res.status}: ${(await res.text()).slice(0, 300)}`;
    await res.body?.cancel();
  }
  const r = scenario.requests[0]!;
  const res = await fetch(baseUrl + r.path, { method: r.method, headers: r.headers, body: withUnique(r.body) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the check reports the text
  }
  return scenario.check(res.status, body);
}

/** Requests whose SQL statement count must not grow with the page size (no N+1), by label. */
export function pageSizeRequests(token: string, first: number): Record<string, Request> {
  return {
    "GraphQL restaurants page (owner, rating)": graphqlRequest(RESTAURANTS_PAGE, { first }, token),
    "REST GET /restaurants": { method: "GET", path: `/restaurants?limit=${first}`, headers: bearer(token) },
    "REST GET /groceries": { method: "GET", path: `/groceries?limit=${first}`, headers: bearer(token) },
  };
}
