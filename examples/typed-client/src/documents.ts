// The app's operations: each is typed by the generated code (src/gql) and listed in the manifest.
import { graphql } from "./gql";

export const SignIn = graphql(`
  mutation SignIn($username: String!, $password: String!) {
    login(username: $username, password: $password) {
      accessToken
    }
  }
`);

export const RestaurantPage = graphql(`
  query RestaurantPage($first: Int!) {
    restaurants(first: $first) {
      totalCount
      nodes {
        id
        title
      }
    }
  }
`);
