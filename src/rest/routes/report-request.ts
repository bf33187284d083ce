// What Report restaurant and Report grocery read (docs/rest-contract.md, "Shared method and path pairs"): reason_type, which may carry two
// values (type then body: a repeated key, `reason_type[]` or a JSON array), and reason_body.
import { badInput } from "../../contract/errors.ts";
import { text, textList } from "../requests/fields.ts";
import { inBody } from "../requests/params.ts";
import type { FieldValues, RestParam } from "../route-row.ts";

export const reportParams: RestParam[] = [
  inBody("reason_type", textList, {
    to: "input.reasonType",
    description: "the reason's type (e.g. spam); a second value, if any, is the reason's body",
  }),
  inBody("reason_body", text, {
    to: "input.reasonBody",
    description: "the reporter's explanation; wins over a second reason_type",
  }),
];

export function reportVariables(values: FieldValues) {
  const reasons = (values.reason_type as string[] | null | undefined) ?? [];
  if (reasons.length === 0) throw badInput("reason_type is required", { field: "reason_type" });
  if (reasons.length > 2)
    throw badInput("reason_type takes at most two values: the reason's type, then its body", { field: "reason_type" });
  return { input: { reasonType: reasons[0], reasonBody: values.reason_body ?? reasons[1] } };
}
