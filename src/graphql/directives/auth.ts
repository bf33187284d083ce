// Auth as a declared rule: @requireAuth / @public on every root field, checked here once.
import { getDirective, MapperKind, mapSchema } from "@graphql-tools/utils";
import { defaultFieldResolver, type GraphQLSchema } from "graphql";
import { DomainError, forbidden } from "../../domain/errors.ts";
import type { Context } from "../context.ts";

const ROOT_TYPES = new Set(["Query", "Mutation", "Subscription"]);

function unauthenticatedFor(ctx: Context): DomainError {
  return new DomainError(
    "UNAUTHENTICATED",
    ctx.auth.state === "invalid"
      ? "The access token is invalid, expired or revoked; sign in again for a new one."
      : "An access token is required: send Authorization: Bearer <token> (get one from login or register).",
  );
}

export function applyAuthDirectives(schema: GraphQLSchema): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
      const rule = getDirective(schema, field, "requireAuth")?.[0] as { role?: "USER" | "ADMIN" } | undefined;
      const isPublic = Boolean(getDirective(schema, field, "public")?.[0]);
      if (ROOT_TYPES.has(typeName) && !rule && !isPublic) {
        throw new Error(`${typeName}.${fieldName} declares neither @requireAuth nor @public`);
      }
      if (!rule) return field;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, ctx: Context, info) => {
        if (!ctx.viewer) throw unauthenticatedFor(ctx);
        if (rule.role === "ADMIN" && ctx.viewer.role !== "ADMIN") throw forbidden(`${fieldName} is for admins only.`);
        return resolve(source, args, ctx, info);
      };
      return field;
    },
  });
}
