// GraphQL Code Generator's client preset for this service: typed documents for the app, and the
// persisted-documents manifest the service reads (TRUSTED_DOCUMENTS_MANIFEST).
// Run: npx graphql-codegen --config codegen.ts
import type { CodegenConfig } from "@graphql-codegen/cli";

const config: CodegenConfig = {
  // The service's schema file; a running service's http://127.0.0.1:4000/graphql works too.
  schema: "../../schema.graphql",
  documents: ["src/**/*.ts", "!src/gql/**"],
  generates: {
    "./src/gql/": {
      preset: "client",
      presetConfig: {
        // Writes src/gql/persisted-documents.json (SHA-256 of each document -> its text) and
        // gives every document its hash (document.__meta__.hash).
        persistedDocuments: true,
      },
      // Documents as strings: no GraphQL parser in the app, the text or the hash is all it sends.
      config: { documentMode: "string" },
    },
  },
};

export default config;
