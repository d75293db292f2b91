/**
 * `@parley/client/offline`: the offline mapper (draft-zhou §6.1 without a
 * model), the default mapper of `mapUtterance` and `ask`. A subpath of its own
 * because it reads WordNet (~27 MB, through `@parley/embeddings`) and
 * chrono-node: `@parley/client` imports this module only when it first maps
 * without a mapper of the caller's. Exactly the public API.
 */
export { OFFLINE_MAPPER_ID, createOfflineMapper } from './mapper';
export type { OfflineMapper, OfflineMapperOptions } from './mapper';
