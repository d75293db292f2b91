-- The evolver's input log takes two more kinds (draft-zhou §6.2.2): `grown`, a matured cluster that
-- grew and is induced again while its key is experimental (pool.grown), and `edit`, an operator's
-- correction of a patch key (edit_patch), both folded on replay like every input.
ALTER TABLE evolution.inputs DROP CONSTRAINT IF EXISTS inputs_kind_check;
ALTER TABLE evolution.inputs ADD CONSTRAINT inputs_kind_check
  CHECK (kind IN ('base', 'matured', 'grown', 'execution', 'audit', 'tick', 'approve', 'reject', 'pin', 'edit'));
