-- The cluster's nodes and their leases (issue 43); server/storage/postgres_lease.hpp says how
-- they are used. Every time here is the DATABASE's clock (clock_timestamp()), never a node's:
-- the nodes' clocks may disagree, the one database has one clock.
--
-- A node holds a lease while lease_expires_at is in the future. It extends it by heartbeats; a
-- heartbeat that finds it expired, or taken by a newer incarnation, fails, and the node stops
-- writing. The games of a node whose lease expired, and games with no owner, may be adopted by
-- another node: owner_node changes and owner_epoch goes up by one, and every write of a game
-- checks both in the same statement, so the node that lost the game cannot commit to it.
CREATE TABLE nodes (
    node_id          text        COLLATE "C" NOT NULL PRIMARY KEY
                                 CHECK (node_id ~ '^[A-Za-z0-9._-]{1,64}$'),
    -- One more each time a process joins under this id (a restart, or a rejoin after the lease
    -- was lost): the heartbeats of an older process with the same id then fail as taken.
    incarnation      bigint      NOT NULL CHECK (incarnation >= 1),
    started_at       timestamptz NOT NULL,  -- when this incarnation joined
    heartbeat_at     timestamptz NOT NULL,  -- the last heartbeat that held
    lease_expires_at timestamptz NOT NULL,
    left_at          timestamptz            -- a graceful leave (NULL: running, or it died)
);

-- A game's owner is a node that joined once (NULL: no owner, single node, or handed over).
ALTER TABLE games ADD FOREIGN KEY (owner_node) REFERENCES nodes (node_id);

-- The sweepers' question, "which unfinished games have no live owner", without reading the
-- finished ones: a node's unfinished games, and those of no node (NULL sorts last in a btree).
CREATE INDEX games_unfinished_by_owner ON games (owner_node, created_ms, id)
    WHERE status IN ('waiting', 'playing');

-- A fencing token only works if it never goes back: an epoch lower than one already handed out
-- would let the node that held it write again. Refused here whatever the writer.
CREATE FUNCTION games_owner_epoch_never_decreases() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'owner_epoch of game % may not go down from % to %',
        OLD.id, OLD.owner_epoch, NEW.owner_epoch
        USING ERRCODE = 'check_violation';
END
$$;
CREATE TRIGGER games_owner_epoch_never_decreases
    BEFORE UPDATE OF owner_epoch ON games
    FOR EACH ROW WHEN (NEW.owner_epoch < OLD.owner_epoch)
    EXECUTE FUNCTION games_owner_epoch_never_decreases();
