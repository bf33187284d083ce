import { createRequire } from "node:module";
import { defineConfig } from "vitest/config";

const require = createRequire(import.meta.url);

export default defineConfig({
  resolve: {
    // graphql 16 ships CJS (.js) and ESM (.mjs) copies; Node loads the CJS one for everybody,
    // Vite would hand our code the .mjs one -> "Cannot use GraphQLSchema from another module or realm".
    alias: [{ find: /^graphql$/, replacement: require.resolve("graphql") }],
    extensions: [".js", ".ts", ".mjs", ".mts", ".json"],
  },
  test: {
    include: ["test/**/*.test.ts"],
    // Test files run in parallel forks, each with its own server and database; 2 cores here.
    pool: "forks",
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // CI sets VITEST_JSON to also get a machine-readable report (it sums both databases' runs).
    reporters: process.env.VITEST_JSON ? ["default", ["json", { outputFile: process.env.VITEST_JSON }]] : ["default"],
  },
});
