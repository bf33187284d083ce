// Runs one of the app's operations by its id: the service finds the text in its manifest, so
// under TRUSTED_DOCUMENTS=enforce nothing else can run. Variables and result are typed by the
// generated code (src/gql).
import type { TypedDocumentString } from "./gql/graphql";

export type Endpoint = { url: string; token?: string };

export async function execute<Result, Variables>(
  endpoint: Endpoint,
  document: TypedDocumentString<Result, Variables>,
  variables: Variables,
): Promise<Result> {
  const response = await fetch(endpoint.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/graphql-response+json",
      ...(endpoint.token ? { authorization: `Bearer ${endpoint.token}` } : {}),
    },
    // `sha256:<hex>`: the id the manifest lists the document under.
    body: JSON.stringify({ documentId: document.__meta__?.hash, variables }),
  });
  const { data, errors } = (await response.json()) as {
    data?: Result;
    errors?: { message: string; extensions?: { code?: string } }[];
  };
  if (errors?.length || data === undefined)
    throw new Error((errors ?? []).map((e) => `${e.extensions?.code}: ${e.message}`).join("; "));
  return data;
}
