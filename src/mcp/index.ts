/** The MCP server at `/mcp` (http.ts), its tools (tools.ts, weekly.ts), their output schemas (schemas.ts), long lists in pages (pages.ts), results (results.ts), prompts (prompts.ts) and argument completion (completions.ts). */
export { allowedHostsOf, handleMcp, type McpContext, MCP_PATH, type McpOptions, mcpRoutes } from './http';
export { COMPLETION_MAX } from './completions';
export { OFFSET_ARG, type Page, pageOf, ROW_LIMIT } from './pages';
export { outputSchemaOf } from './schemas';
export { PROMPTS } from './prompts';
export { INSTRUCTIONS, mcpServer, SERVER_INFO } from './server';
export { READ_ONLY, toolName, TOOLS_LIST_MAX_BYTES, toolsOfOperations } from './tools';
export { reportText, weeklyReportTool } from './weekly';
