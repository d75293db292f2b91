/**
 * A strict JSON Schema of the A2A v1.0 AgentCard in ProtoJSON, written from the
 * messages of the A2A specification's `a2a.proto` (package lf.a2a.v1:
 * AgentCard, AgentInterface, AgentProvider, AgentCapabilities, AgentExtension,
 * AgentSkill, AgentCardSignature, SecurityRequirement, StringList,
 * SecurityScheme and its five schemes, OAuthFlows and its flows). Member names
 * are the fields' lowerCamelCase JSON names; fields marked
 * `(google.api.field_behavior) = REQUIRED` are required; no other member is
 * allowed anywhere, so a v0.3 field (`url`, `protocolVersion`,
 * `preferredTransport`, `additionalInterfaces`, `security`, ...) fails.
 */
type Schema = Record<string, unknown>;

const strict = (properties: Record<string, Schema>, required: string[] = []): Schema => ({ type: 'object', properties, required, additionalProperties: false });
const s = { type: 'string' };
const b = { type: 'boolean' };
const strings = { type: 'array', items: s };
const struct = { type: 'object' };
const map = (v: Schema): Schema => ({ type: 'object', additionalProperties: v });
const ref = (n: string): Schema => ({ $ref: `#/definitions/${n}` });
/** A proto oneof: exactly one of these members. */
const oneof = (members: Record<string, Schema>): Schema => ({ type: 'object', properties: members, additionalProperties: false, minProperties: 1, maxProperties: 1 });

export const A2A_V1_AGENT_CARD_SCHEMA: Schema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'urn:parley:test:a2a-v1.0-agent-card',
  ...strict(
    {
      name: s,
      description: s,
      supportedInterfaces: { type: 'array', items: ref('AgentInterface'), minItems: 1 },
      provider: ref('AgentProvider'),
      version: s,
      documentationUrl: s,
      capabilities: ref('AgentCapabilities'),
      securitySchemes: map(ref('SecurityScheme')),
      securityRequirements: { type: 'array', items: ref('SecurityRequirement') },
      defaultInputModes: strings,
      defaultOutputModes: strings,
      skills: { type: 'array', items: ref('AgentSkill') },
      signatures: { type: 'array', items: ref('AgentCardSignature') },
      iconUrl: s,
    },
    ['name', 'description', 'supportedInterfaces', 'version', 'capabilities', 'defaultInputModes', 'defaultOutputModes', 'skills'],
  ),
  definitions: {
    AgentInterface: strict({ url: s, protocolBinding: s, tenant: s, protocolVersion: s }, ['url', 'protocolBinding', 'protocolVersion']),
    AgentProvider: strict({ url: s, organization: s }, ['url', 'organization']),
    AgentCapabilities: strict({ streaming: b, pushNotifications: b, extensions: { type: 'array', items: ref('AgentExtension') }, extendedAgentCard: b, skillQuery: b }),
    AgentExtension: strict({ uri: s, description: s, required: b, params: struct }),
    AgentSkill: strict(
      { id: s, name: s, description: s, tags: strings, examples: strings, inputModes: strings, outputModes: strings, securityRequirements: { type: 'array', items: ref('SecurityRequirement') } },
      ['id', 'name', 'description', 'tags'],
    ),
    AgentCardSignature: strict({ protected: s, signature: s, header: struct }, ['protected', 'signature']),
    SecurityRequirement: strict({ schemes: map(strict({ list: strings })) }),
    SecurityScheme: oneof({
      apiKeySecurityScheme: strict({ description: s, location: s, name: s }, ['location', 'name']),
      httpAuthSecurityScheme: strict({ description: s, scheme: s, bearerFormat: s }, ['scheme']),
      oauth2SecurityScheme: strict({ description: s, flows: ref('OAuthFlows'), oauth2MetadataUrl: s }, ['flows']),
      openIdConnectSecurityScheme: strict({ description: s, openIdConnectUrl: s }, ['openIdConnectUrl']),
      mtlsSecurityScheme: strict({ description: s }),
    }),
    OAuthFlows: oneof({
      authorizationCode: strict({ authorizationUrl: s, tokenUrl: s, refreshUrl: s, scopes: map(s), pkceRequired: b }, ['authorizationUrl', 'tokenUrl', 'scopes']),
      clientCredentials: strict({ tokenUrl: s, refreshUrl: s, scopes: map(s) }, ['tokenUrl', 'scopes']),
      implicit: strict({ authorizationUrl: s, refreshUrl: s, scopes: map(s) }),
      password: strict({ tokenUrl: s, refreshUrl: s, scopes: map(s) }),
      deviceCode: strict({ deviceAuthorizationUrl: s, tokenUrl: s, refreshUrl: s, scopes: map(s) }, ['deviceAuthorizationUrl', 'tokenUrl', 'scopes']),
    }),
  },
};
