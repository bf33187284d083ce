// The part of s3rver 3's API the tests use (the package ships no types).
declare module "s3rver" {
  import type { AddressInfo } from "node:net";

  export default class S3rver {
    constructor(options: { port?: number; address?: string; silent?: boolean; directory: string });
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
