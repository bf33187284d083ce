// The part of autocannon 9's API the bench uses (the package ships no types).
declare module "autocannon" {
  export type Request = {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Called before each send of this request: the request to send instead. */
    setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
  };

  export type Options = {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    pipelining?: number;
    /** Replace "[<id>]" in each request's body with a fresh unique value. */
    idReplacement?: boolean;
    /** Seconds before a request counts as timed out. */
    timeout?: number;
    /** Requests per second over all connections (unlimited when absent). */
    overallRate?: number;
    /** Each connection cycles through these in order. */
    requests?: Request[];
    /** Called with each connection's client as it is made: e.g. its own requests. */
    setupClient?: (client: { setRequests(requests: Request[]): void }) => void;
    /** false counts the response as a mismatch. */
    verifyBody?: (body: string) => boolean;
  };

  export type Histogram = {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
    [percentile: string]: number;
  };

  export type Result = {
    /** Seconds. */
    duration: number;
    errors: number;
    timeouts: number;
    mismatches: number;
    non2xx: number;
    "2xx": number;
    statusCodeStats: Record<string, { count: number }>;
    /** Milliseconds. */
    latency: Histogram & { totalCount: number };
    /** Requests per second samples; `total` is the number of completed requests. */
    requests: Histogram & { sent: number };
    throughput: Histogram;
  };

  export default function autocannon(options: Options): Promise<Result>;
}
