/** Where the MCP door answers, and where MCP clients find how to get a token for it (RFC 9728). */
export const MCP_PATH = '/mcp';
export const PROTECTED_RESOURCE_PATH = '/.well-known/oauth-protected-resource';
/** The door's own metadata: RFC 9728 puts the resource's path after the well-known one. */
export const MCP_RESOURCE_METADATA_PATH = `${PROTECTED_RESOURCE_PATH}${MCP_PATH}`;
