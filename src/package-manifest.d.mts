export const packageManifest: {
  name: string;
  version: string;
  description: string;
  scripts: Record<string, string>;
  engines: { node: string };
};
export const SUPPORTED_LINES: string;
export function supportsNode(version: string): boolean;
