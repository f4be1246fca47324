#!/usr/bin/env node
// The `imagehub` command. npm links this committed file at install time, before a build has written
// dist/, so the link exists on a fresh clone; it runs the build.
import { existsSync } from "node:fs";

const build = new URL("../dist/cli/main.js", import.meta.url);
if (existsSync(build)) {
  await import(build.href);
} else {
  process.stderr.write(
    "imagehub: the command is not built yet: run `npm run build` (or `npm start`) first\n",
  );
  process.exitCode = 1;
}
