// Moved to src/contract/errors.ts (the error vocabulary every layer shares). This re-export lets
// branches opened before the move land; it goes once they have.
export * from "../contract/errors.ts";
