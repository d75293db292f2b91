export {
  NAMESPACE_PATTERN,
  ROLES,
  assertMayServe,
  assertOwnsAgent,
  assertPrincipalId,
  effectiveClientId,
  hasRole,
  isRole,
  matchesPattern,
  mayServeScenario,
  ownsAgent,
  withClientId,
  type Principal,
  type Role,
} from './principal';
export { API_KEY_PATTERN, bearerCredential, hashSecret, mintApiKey, parseApiKey, secretMatches, type ApiKeyScope, type MintedApiKey } from './api-key';
export { POLICY, authorize, policyKey, rolesFor, type Authenticator } from './policy';
export { createJwtVerifier, parseJwtIssuers, type JwtIssuer, type JwtVerifier, type JwtVerifierOptions } from './jwt';
