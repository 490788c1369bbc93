#!/usr/bin/env node
// Rein's packages ship TypeScript sources; tsx compiles them as they load.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exit(await main(process.argv.slice(2)));
