// The ownership rule of docs/rest-contract.md ("Who may do what"), in one place: the creator of a restaurant or grocery owns it;
// its owner or an admin may edit or remove it; anyone else gets FORBIDDEN and nothing changes.
import { forbidden, notFound } from "../contract/errors.ts";
import type { Viewer } from "./accounts/tokens.ts";

export type Owned = { ownerId: string };

export const canEdit = (viewer: Viewer | null, resource: Owned) =>
  viewer !== null && (viewer.role === "ADMIN" || viewer.id === resource.ownerId);

/** The row, if it exists (else NOT_FOUND) and the viewer may change it (else FORBIDDEN). */
export function editable<T extends Owned>(
  what: "Restaurant" | "Grocery",
  id: string,
  row: T | null,
  viewer: Viewer,
): T {
  if (!row) throw notFound(what, id);
  if (!canEdit(viewer, row))
    throw forbidden(`Only the ${what.toLowerCase()}'s owner or an admin may change or remove it.`);
  return row;
}

/** Private facts about an account (its role) are for the account itself and for admins. */
export const isSelfOrAdmin = (viewer: Viewer | null, accountId: string) =>
  viewer !== null && (viewer.role === "ADMIN" || viewer.id === accountId);
