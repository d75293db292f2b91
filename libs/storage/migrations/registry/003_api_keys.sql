-- API keys (draft-zhou §7): hashed at rest, scoped, revocable. A key
-- reads pk_<key_id>_<secret>; only SHA-256(secret) is kept. The scope (principal,
-- roles, agent and scenario namespaces) is what the key grants; a revoked or
-- expired key authenticates no one, and its row stays for the audit trail.
CREATE TABLE registry.api_keys (
  key_id       text PRIMARY KEY,
  secret_hash  text NOT NULL,
  principal    text NOT NULL,
  tenant       text NOT NULL,
  roles        text[] NOT NULL,
  agents       text[] NOT NULL DEFAULT '{}',
  scenarios    text[] NOT NULL DEFAULT '{}',
  description  text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL,
  created_by   text NOT NULL,
  expires_at   timestamptz,
  revoked_at   timestamptz
);
CREATE INDEX api_keys_principal ON registry.api_keys (principal);
