import { expect, it } from 'vitest';
import { SERVICE_SCHEMAS, afterCommit, loadMigrations, migrate, type Db } from '@parley/storage';

/** The same behaviour from both adapters: the embedded mode runs the production SQL unchanged. */
export function storageContract(open: () => Promise<Db>): void {
  it('applies every service migration once, and again is a no-op', async () => {
    const db = await open();
    try {
      for (const s of SERVICE_SCHEMAS) {
        const versions = loadMigrations(s).map((m) => m.version);
        expect(versions.length).toBeGreaterThan(0);
        expect(await migrate(db, s)).toEqual(versions);
        expect(await migrate(db, s)).toEqual([]);
      }
    } finally {
      await db.close();
    }
  });

  it('rolls back a transaction that throws and commits one that resolves', async () => {
    const db = await open();
    try {
      await migrate(db, 'registry');
      await expect(
        db.transaction(async (tx) => {
          await tx.query(`INSERT INTO registry.agents (name, registered_at, updated_at) VALUES ('ghost', now(), now())`);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect((await db.query('SELECT 1 FROM registry.agents WHERE name = $1', ['ghost'])).rowCount).toBe(0);
      await db.transaction((tx) => tx.query(`INSERT INTO registry.agents (name, registered_at, updated_at) VALUES ('kept', now(), now())`));
      expect((await db.query('SELECT 1 FROM registry.agents WHERE name = $1', ['kept'])).rowCount).toBe(1);
    } finally {
      await db.close();
    }
  });

  it('runs after-commit work once the transaction commits, with its rows visible to other connections, and never after a rollback', async () => {
    const db = await open();
    try {
      await migrate(db, 'registry');
      const seen: number[] = [];
      const hook = (name: string) => () =>
        void db.query('SELECT 1 FROM registry.agents WHERE name = $1', [name]).then((r) => seen.push(r.rowCount));
      let ranInside = 0;
      await db.transaction(async (tx) => {
        await tx.query(`INSERT INTO registry.agents (name, registered_at, updated_at) VALUES ('nudged', now(), now())`);
        afterCommit(tx, hook('nudged'));
        afterCommit(tx, () => void ranInside++);
        // Work after the hook was registered, as a consumer's processed mark: the hook still waits for COMMIT.
        await new Promise((r) => setTimeout(r, 20));
        expect(ranInside).toBe(0);
        await tx.query('SELECT 1');
      });
      expect(ranInside).toBe(1);
      await expect.poll(() => seen).toEqual([1]);
      let rolledBack = 0;
      await expect(
        db.transaction(async (tx) => {
          afterCommit(tx, () => void rolledBack++);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      await new Promise((r) => setImmediate(r));
      expect(rolledBack).toBe(0);
      // A handle no transaction opened (the Db itself): on the next turn.
      let plain = 0;
      afterCommit(db, () => void plain++);
      expect(plain).toBe(0);
      await new Promise((r) => setImmediate(r));
      expect(plain).toBe(1);
    } finally {
      await db.close();
    }
  });

  it('refuses to update or delete a published schema version (draft-zhou §6.2.2: the base schema is immutable)', async () => {
    const db = await open();
    try {
      await migrate(db, 'negotiation');
      await db.query(`INSERT INTO negotiation.schemas VALUES ('a', 's_v1', 's', 's', 1, 'en', null, now())`);
      await expect(db.query(`UPDATE negotiation.schemas SET version = 2`)).rejects.toThrow(/immutable/);
      await expect(db.query(`DELETE FROM negotiation.schemas`)).rejects.toThrow(/immutable/);
      expect((await db.query<{ version: number }>('SELECT version FROM negotiation.schemas')).rows[0]?.version).toBe(1);
    } finally {
      await db.close();
    }
  });
}
