// A GET whose body arrives as the server sent it (fetch would decompress it and hide the encoding).
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";

export type RawResponse = { status: number; headers: IncomingHttpHeaders; body: Buffer };

export function getAsSent(url: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}
