// Trusted documents and automatic persisted queries as the settings describe them (Config's
// `persisted`): the manifests read (a bad one throws ManifestError), the store shared through
// Redis when there is one.
import type { Config } from "../../config.ts";
import type { SharedRedis } from "../../redis/connection.ts";
import { readManifests } from "./manifest.ts";
import { PersistedDocuments } from "./persisted-documents.ts";
import { PersistedQueries, type Registration } from "./persisted-queries.ts";
import { TrustedDocuments } from "./trusted-documents.ts";

export function persistedDocuments(
  settings: Config["persisted"],
  redis: SharedRedis | undefined,
  observe: (outcome: Registration) => void,
): PersistedDocuments {
  const trusted =
    settings.trust === "off"
      ? TrustedDocuments.off
      : new TrustedDocuments(settings.trust, readManifests(settings.manifests), settings.adminsSendText);
  return new PersistedDocuments(trusted, new PersistedQueries({ ...settings.apq, redis }), observe);
}
