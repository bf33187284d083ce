// @selfOrAdmin on a User field: its value is shown to that account itself and to admins, null to
// everyone else (the domain rule isSelfOrAdmin). The field must be nullable, checked at start-up,
// so hiding it never blanks the object around it (a restaurant's owner, a comment's author).
import { getDirective, MapperKind, mapSchema } from "@graphql-tools/utils";
import { defaultFieldResolver, isNonNullType, type GraphQLSchema } from "graphql";
import { isSelfOrAdmin } from "../../domain/ownership.ts";
import type { Context } from "../data/context.ts";

export function applyVisibilityDirectives(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      if (!getDirective(schema, field, "selfOrAdmin")?.[0]) return field;
      if (typeName !== "User") throw new Error(`${typeName}.${fieldName}: @selfOrAdmin is for fields of User`);
      if (isNonNullType(field.type))
        throw new Error(`${typeName}.${fieldName}: @selfOrAdmin needs a nullable type (others get null)`);
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (user: { id: string }, args, ctx: Context, info) =>
        // An account that has just signed in or registered sees itself in its AuthPayload.
        isSelfOrAdmin(ctx.viewer, user.id) || ctx.signedInNow.has(user.id) ? resolve(user, args, ctx, info) : null;
      return field;
    },
  });
}
