// The server over the demo data set (`npm run seed`: src/seed), signed in as its demo user: what
// docs/relay.md's examples and the Relay app of this folder run against.
import { DEMO_USERNAME } from "../../src/seed/dataset.ts";
import { DEFAULT_SEED_PASSWORD, seed } from "../../src/seed/seed.ts";
import { startServer, type TestServer } from "../helpers/server.ts";

export async function seededServer(): Promise<{ s: TestServer; token: string }> {
  const s = await startServer();
  await seed(s.db, { size: "small", uploadDir: s.config.uploadDir, password: DEFAULT_SEED_PASSWORD });
  const login = await s.graphql(
    `mutation($u: String!, $p: String!) { login(username: $u, password: $p) { accessToken } }`,
    {
      u: DEMO_USERNAME,
      p: DEFAULT_SEED_PASSWORD,
    },
  );
  if (!login.data) throw new Error(`demo login failed: ${JSON.stringify(login.errors)}`);
  return { s, token: login.data.login.accessToken };
}
