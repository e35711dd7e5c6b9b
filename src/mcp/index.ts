/** The MCP server at `/mcp` (http.ts), its tools (tools.ts, weekly.ts) and their results (results.ts). */
export { allowedHostsOf, handleMcp, type McpContext, MCP_PATH, type McpOptions, mcpRoutes } from './http';
export { INSTRUCTIONS, mcpServer, SERVER_INFO } from './server';
export { READ_ONLY, toolName, toolsOfOperations } from './tools';
export { reportText, weeklyReportTool } from './weekly';
