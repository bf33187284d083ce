// The part of oidc-provider 9's API the tests use (the package ships no types; @types/oidc-provider
// would be a dependency for one test helper).
declare module "oidc-provider" {
  import type { RequestListener } from "node:http";

  type Client = { clientId: string };
  type ResourceServer = { accessTokenTTL?: number };
  type Token = { clientId?: string; scope?: string; resourceServer?: ResourceServer };

  export type Configuration = {
    clients: Record<string, unknown>[];
    jwks: { keys: object[] };
    features: {
      devInteractions?: { enabled: boolean };
      clientCredentials?: { enabled: boolean };
      resourceIndicators?: {
        enabled: boolean;
        defaultResource(ctx: unknown): string;
        useGrantedResource(ctx: unknown): boolean;
        getResourceServerInfo(ctx: unknown, resource: string, client: Client): Record<string, unknown>;
      };
    };
    ttl?: { ClientCredentials?(ctx: unknown, token: Token, client: Client): number };
    extraTokenClaims?(ctx: unknown, token: Token): Promise<Record<string, unknown> | undefined>;
  };

  export default class Provider {
    constructor(issuer: string, configuration: Configuration);
    callback(): RequestListener;
  }
}
