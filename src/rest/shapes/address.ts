// The legacy Address object (spec "Address"). Always an object, so legacy clients can read
// `address.city` without a check; its fields are null when unknown, `geo` null without coordinates.
import type { LegacyRestaurantSearchItemFragment } from "../../graphql/__generated__/operations.ts";
import * as s from "../openapi/json-schema.ts";

/** ADDRESS_FIELDS as codegen types them (every fragment selecting an address selects these). */
export type GraphqlAddress = NonNullable<LegacyRestaurantSearchItemFragment["address"]>;

export const ADDRESS_FIELDS = `addressLine1 addressLine2 landmark state city district country geo { latitude longitude }`;

const text = s.nullable(s.string());

export const addressSchema = s.answer({
  addressLine1: text,
  addressLine2: text,
  landmark: text,
  state: text,
  city: text,
  district: text,
  country: text,
  geo: s.nullable(s.answer({ latitude: s.number(), longitude: s.number() })),
});

export function legacyAddress(a: GraphqlAddress | null) {
  return {
    addressLine1: a?.addressLine1 ?? null,
    addressLine2: a?.addressLine2 ?? null,
    landmark: a?.landmark ?? null,
    state: a?.state ?? null,
    city: a?.city ?? null,
    district: a?.district ?? null,
    country: a?.country ?? null,
    geo: a?.geo ? { latitude: a.geo.latitude, longitude: a.geo.longitude } : null,
  };
}
