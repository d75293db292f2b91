export { resolveInfra, exportInfra, integrationInfra, createTestDatabase, uniquePrefix, isCI, type Infra } from './infra';
export { postRaw, rpc, useKey, waitFor, FIGURE_8, type RawResponse } from './rpc';
export { badInputCases, expectRpcError, SILENT_TEMPLATE, type BadInputContext } from './bad-input';
export { REPO_ROOT, freePort, startProcess, waitReady, type ServiceProcess } from './processes';
export { seededRandom } from './random';
export { findExecutable, findNatsServer, toolGate, type ToolGate } from './tools';
export { keyedAuthenticator, serviceOnlyAuthenticator, testIdentity, type TestIdentity, type TestPrincipal } from './identity';
export { ancestry, fromOtlpJson, fromReadableSpans, orphans, startOtlpReceiver, type OtlpReceiver, type TestSpan } from './traces';
export { answer, completion, startChatServer, type ChatBody, type ChatServer, type Handler, type Received, type Reply } from './chat-server';
