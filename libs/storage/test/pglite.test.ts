import { describe } from 'vitest';
import { openDb } from '@parley/storage';
import { storageContract } from './storage-contract';

describe('storage on PGlite (embedded mode)', () => {
  storageContract(() => openDb('pglite://memory'));
});
