// Which Node runs the service, for the start banner: the machine's own, or the one `npm install`
// put into node_modules/.runtime because the machine's was not a supported line
// (scripts/node-runtime/install.mjs records why in installed-for.json).
import { existsSync, readFileSync, realpathSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const RUNTIME_DIR = fileURLToPath(new URL("../../node_modules/.runtime", import.meta.url));

type Installed = { package: string; systemNode: string };

export function describeRuntime(execPath = process.execPath, version = process.version): string {
  const record = path.join(RUNTIME_DIR, "installed-for.json");
  if (!existsSync(record) || !realpathSync(execPath).startsWith(realpathSync(RUNTIME_DIR) + path.sep))
    return `Node ${version}`;
  const installed = JSON.parse(readFileSync(record, "utf8")) as Installed;
  return `Node ${version} from node_modules/.runtime (${installed.package}): npm install found Node ${installed.systemNode}, not a supported line`;
}
