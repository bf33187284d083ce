// The documents of a small Relay app, written as a Relay app writes them: relay-compiler reads the
// graphql`` templates of this folder (test/relay/relay-app.test.ts compiles them against
// schema.graphql into a temporary folder, and runs what it writes with relay-runtime). They are
// never run as code here, so the tag is a stand-in for relay-runtime's (the compiler reads the
// text only); docs/relay.md shows the same fragments.
const graphql = String.raw;

/** A restaurant's header, refetchable by its id alone: Relay writes RestaurantScreenRefetchQuery (node(id:)). */
export const header = graphql`
  fragment RestaurantScreen_header on Restaurant @refetchable(queryName: "RestaurantScreenRefetchQuery") {
    id
    title
    rating
    commentCount
  }
`;

/** Its comments, paged both ways (a bidirectional connection: first/after and last/before). */
export const comments = graphql`
  fragment RestaurantScreen_comments on Restaurant
  @refetchable(queryName: "RestaurantScreenCommentsQuery")
  @argumentDefinitions(
    first: { type: "Int" }
    after: { type: "String" }
    last: { type: "Int" }
    before: { type: "String" }
  ) {
    comments(first: $first, after: $after, last: $last, before: $before) @connection(key: "RestaurantScreen_comments") {
      totalCount
      edges {
        node {
          id
          title
          rating
          author {
            firstName
          }
        }
      }
    }
  }
`;

/** The screen's query: the header and the first (or last) comments. */
export const screen = graphql`
  query RestaurantScreenQuery($id: ID!, $first: Int, $last: Int) {
    restaurant(id: $id) {
      ...RestaurantScreen_header
      ...RestaurantScreen_comments @arguments(first: $first, last: $last)
    }
  }
`;
