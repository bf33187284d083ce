// Pictures (a restaurant's logo, cover and photos, a user's avatar, a badge's cover) are URLs or
// file names that clients put in <img src> or links. Only http(s) URLs and relative references
// (a file name such as "logo.png", a path) are kept: javascript:, vbscript:, data: and every other
// scheme are refused, since a browser would run or render them as the page's own content.
// The value is read the way a browser reads it, with the WHATWG URL parser: it drops leading and
// trailing control characters and spaces, removes tabs and newlines anywhere and ignores the
// scheme's case, so " JaVaScRiPt:", "java\tscript:" and "\u0001javascript:" are all seen as javascript:.
import type { z } from "zod";

/** Relative references resolve against this; only the scheme of the result matters. */
const BASE = "http://relative.invalid/";
const ALLOWED_SCHEMES = new Set(["http:", "https:"]);

/** True for an http(s) URL or a relative reference (a file name, a path); blank counts as none. */
export function isImageReference(value: string): boolean {
  if (value.trim() === "") return true;
  try {
    return ALLOWED_SCHEMES.has(new URL(value, BASE).protocol);
  } catch {
    return false; // not a URL a browser could load either (e.g. "http://[")
  }
}

export const imageReferenceMessage = (field: string) =>
  `${field} must be an http(s) URL or a file name such as logo.png (other schemes, such as javascript: or data:, are refused)`;

/** Refines a string schema: refused, naming `field`, unless an image reference. */
export function imageReference<S extends z.ZodType<string>>(schema: S, field: string) {
  return schema.superRefine((value, ctx) => {
    if (!isImageReference(value)) ctx.addIssue({ code: "custom", message: imageReferenceMessage(field) });
  });
}
