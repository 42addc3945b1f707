/** `llmgw ctl` lives in ./ctl/, a file per area; this name stays for main.ts. */
export { ctlCommand } from "./ctl/mod.ts";
