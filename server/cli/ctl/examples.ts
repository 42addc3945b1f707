/**
 * The examples `ctl NOUN --help` and `ctl NOUN VERB --help` show, by noun and verb (`""` for a
 * noun's bare verb). mod_test.ts runs every one through the verb tables and flags, so an example
 * that names a verb or flag ctl does not know fails the tests.
 */
export const examples: Record<string, Record<string, string[]>> = {
  orgs: {
    list: ["ctl orgs list"],
    create: ["ctl orgs create Acme"],
    rename: ["ctl orgs rename org_01J0ABC 'Acme Research'"],
  },
  teams: {
    list: ["ctl teams list --org org_01J0ABC"],
    create: ["ctl teams create --org org_01J0ABC Platform"],
    rename: ["ctl teams rename team_01J0ABC Infra"],
  },
  projects: {
    list: ["ctl projects list --team team_01J0ABC"],
    create: ["ctl projects create --team team_01J0ABC chatbot"],
    rename: ["ctl projects rename prj_01J0ABC support-bot"],
  },
  people: {
    list: ["ctl people list --org org_01J0ABC"],
    add: [
      "ctl people add alice --role member --email alice@example.com --team team_01J0ABC",
      "ctl people add ops --role operator --password 'long-enough-secret'",
    ],
    set: [
      "ctl people set usr_01J0ABC --role tenant_admin",
      "ctl people set usr_01J0ABC --team none",
    ],
    "reset-password": ["ctl people reset-password usr_01J0ABC"],
  },
  keys: {
    create: [
      "ctl keys create --name ci --project prj_01J0ABC --service --expires-in 90d",
      "ctl keys create --name laptop --person usr_01J0ABC --expires-in 12h",
    ],
    list: ["ctl keys list --project prj_01J0ABC", "ctl keys list --json"],
    revoke: ["ctl keys revoke key_01J0ABC"],
  },
  scim: {
    token: [
      "ctl scim token create entra-id",
      "ctl scim token list",
      "ctl scim token revoke sct_01J0ABC",
    ],
  },
  kb: {
    list: ["ctl kb list", "ctl kb list --json"],
    create: [
      "ctl kb create handbook --project prj_01J0ABC --model bge-small",
      "ctl kb create policies --org org_01J0ABC --model bge-small --passage-words 200",
    ],
    add: ["ctl kb add handbook docs/*.md handbook.pdf"],
    status: ["ctl kb status handbook"],
    remove: ["ctl kb remove handbook old-notes.md", "ctl kb remove handbook"],
  },
  limits: {
    show: ["ctl limits show --project prj_01J0ABC", "ctl limits show --global"],
    set: [
      "ctl limits set --project prj_01J0ABC --rpm 600 --tpm 200000",
      "ctl limits set --key key_01J0ABC --budget-month 50000000 --models 'llama-*,qwen*'",
      "ctl limits set --team team_01J0ABC --rpm none",
      "ctl limits set --project prj_01J0ABC --cache on --cache-similar 0.95",
    ],
  },
  audit: {
    list: ["ctl audit --since 1h", "ctl audit --actor admin --target prj_01J0ABC --limit 20"],
  },
  usage: {
    "": ["ctl usage --by project", "ctl usage --since 2026-11-01 --by day --format csv > nov.csv"],
    list: ["ctl usage list --limit 50"],
  },
  models: { list: ["ctl models list", "ctl models --json"] },
  prices: {
    list: ["ctl prices list"],
    set: [
      "ctl prices set llama-3-8b --prompt-per-1m 0.10 --completion-per-1m 0.30",
      "ctl prices set llama-3-8b --prompt-per-1m 0.10 --completion-per-1m 0.30 --cached-per-1m 0.025",
      "ctl prices set llama-3-8b --prompt 100 --completion 300",
    ],
    clear: ["ctl prices clear llama-3-8b"],
  },
  guard: {
    list: ["ctl guard list"],
    show: ["ctl guard show base"],
    judge: ["ctl guard judge check", "ctl guard judge check llama-guard --budget 5000"],
    set: ["ctl guard set base -f policy.json"],
    delete: ["ctl guard delete base"],
    test: [
      "ctl guard test base --text 'mail me at a@example.com'",
      "ctl guard test base --text hi --output",
    ],
  },
  nodes: {
    list: ["ctl nodes", "ctl nodes list --json"],
    "join-code": ["ctl nodes join-code --labels zone=a,gpu=a100 --expires 1h"],
    show: ["ctl nodes show gpu-1"],
    cordon: ["ctl nodes cordon gpu-1", "ctl nodes drain gpu-1", "ctl nodes uncordon gpu-1"],
    remove: ["ctl nodes remove gpu-1"],
    "start-replica": [
      "ctl nodes start-replica gpu-1 --replica-id r1 --model tiny --engine llamacpp --model-path /models/tiny.gguf",
    ],
    "stop-replica": ["ctl nodes stop-replica gpu-1 r1"],
  },
  model: {
    plan: ["ctl model plan hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF --context 8192 --slots 4"],
    add: ["ctl model add -f models.yaml", "ctl model add -f models.yaml --replace"],
    serve: [
      "ctl model serve ./tiny.gguf --name tiny",
      "ctl model serve hf:Qwen/Qwen2.5-0.5B-Instruct-GGUF --replicas 2 --on-demand",
    ],
    explain: ["ctl model explain tiny"],
    context: ["ctl model context tiny 16384 --slots 2", "ctl model context tiny --max-output 1024"],
    gpus: ["ctl model gpus tiny 2"],
    resources: ["ctl model resources tiny --memory 16 --cores 4"],
    judge: ["ctl model judge llama-guard llama-guard-3", "ctl model judge llama-guard off"],
    stop: ["ctl model stop tiny", "ctl model start tiny"],
    logs: [
      "ctl model logs tiny",
      "ctl model logs tiny --replica rep_01J0ABC --lines 50 --follow",
    ],
    remove: ["ctl model remove tiny", "ctl model remove tiny --keep-weights"],
  },
  replicas: { "": ["ctl replicas", "ctl replicas --model tiny --json"] },
  restart: { "": ["ctl restart --model tiny"] },
  weights: { prune: ["ctl weights prune"] },
  backup: { "": ["ctl backup /var/backups/llmgw-2026-12-01.db"] },
  config: {
    get: ["ctl config get", "ctl config get router.queue_timeout_ms"],
    set: ["ctl config set router.queue_timeout_ms 30000 router.max_attempts 3"],
    edit: ["ctl config edit"],
  },
  notify: { "": ["ctl notify test"] },
  mcp: {
    list: ["ctl mcp list"],
    add: [
      "ctl mcp add jira https://mcp.example.com/jira --bearer-file /etc/llmgw/jira.token --rate 60",
    ],
    set: ["ctl mcp set jira https://mcp.example.com/jira --tools 'jira.search,jira.get'"],
    remove: ["ctl mcp remove jira"],
  },
};
