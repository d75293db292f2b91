-- Outbox retention (libs/events/src/retention.ts): published rows older than the retention age are
-- deleted in batches, and the highest seq deleted is kept here. The relay's seq mark (outbox-order.ts)
-- reads it beside the rows, so a mark whose row was pruned is not lost: every seq at or below
-- up_to that is not in the outbox was published and pruned, set aside, rolled back, or drawn by a
-- transaction in flight for longer than the retention age (whose gap was given up long before).
CREATE TABLE evolution.outbox_pruned (
  id    boolean PRIMARY KEY DEFAULT true CHECK (id),
  up_to bigint NOT NULL
);
