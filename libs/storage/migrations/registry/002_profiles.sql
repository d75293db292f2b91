-- AN agent profiles (autonomous-networks multi-agent draft §5.1, Figure 5): the
-- profile document as registered, plus the columns discovery filters on (§4.1:
-- by domain, tag and skill; also by input mode and negotiation type). Independent
-- of registry.agents: an AN agent may serve no draft-zhou scenario.
CREATE TABLE registry.profiles (
  name          text PRIMARY KEY,
  -- A replace must present the same provider (only the agent itself may replace its profile).
  provider      text NOT NULL,
  -- Lowercased for case-insensitive discovery; NULL when the profile names no domain.
  domain        text,
  -- Union of every skill's tags.
  tags          text[] NOT NULL DEFAULT '{}',
  -- Skill names (the skills list's keys).
  skills        text[] NOT NULL DEFAULT '{}',
  -- Union of every skill's input modes (text, image, audio, video).
  input_modes   text[] NOT NULL DEFAULT '{}',
  -- capability.negotiate (FEASIBILITY, FULFILLMENT).
  negotiate     text[] NOT NULL DEFAULT '{}',
  document      jsonb NOT NULL,
  registered_at timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL
);
CREATE INDEX profiles_domain ON registry.profiles (domain);
CREATE INDEX profiles_tags ON registry.profiles USING gin (tags);
CREATE INDEX profiles_skills ON registry.profiles USING gin (skills);
CREATE INDEX profiles_input_modes ON registry.profiles USING gin (input_modes);
