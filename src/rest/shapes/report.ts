// The answer to Report restaurant / Report grocery: the caller's report on the item, and whether
// this request created it (a repeat changes nothing and answers the same report).
import type { LegacyReportFragment } from "../../graphql/__generated__/operations.ts";
import * as s from "../openapi/json-schema.ts";

export const REPORT_FIELDS = `fragment LegacyReport on ReportResult {
  created report { id targetKind targetId reasonType reasonBody status createdAt }
}`;

export const reportSchema = s.answer({
  _id: s.string(),
  target_type: s.string({ enum: ["restaurant", "grocery"] }),
  target_id: s.string(),
  reason_type: s.string(),
  reason_body: s.string({ description: "may be empty" }),
  status: s.string({ enum: ["open", "resolved"] }),
  created: s.boolean({ description: "false when the caller had reported this item before (nothing changed)" }),
  created_at: s.string({ format: "date-time" }),
});

export const legacyReport = ({ created, report: r }: LegacyReportFragment) => ({
  _id: r.id,
  target_type: r.targetKind.toLowerCase(),
  target_id: r.targetId,
  reason_type: r.reasonType,
  reason_body: r.reasonBody,
  status: r.status.toLowerCase(),
  created,
  created_at: r.createdAt,
});
