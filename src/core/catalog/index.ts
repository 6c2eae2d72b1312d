export { describeEndpoint, endpointTool, type DescribeOptions, type EndpointTool } from './endpoint-tools.js';
export { buildOpenApiDocument, type OpenApiOptions } from './openapi.js';
