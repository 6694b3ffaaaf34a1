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
                                 CHECK (node_id ~ '^[A-Za-z0-9_-]{1,64}$'),
    -- One more each time a process joins under this id (a restart, or a rejoin after the lease
    -- was lost): the heartbeats of an older process with the same id then fail as taken.
    incarnation      bigint      NOT NULL CHECK (incarnation >= 1),
    started_at       timestamptz NOT NULL,  -- when this incarnation joined
    heartbeat_at     timestamptz NOT NULL,  -- the last heartbeat that held
    lease_expires_at timestamptz NOT NULL,
    left_at          timestamptz            -- a graceful leave (NULL: running, or it died)
);

-- games.owner_node names a node (NULL: no owner, a single node's game, or handed over), with no
-- foreign key: a game whose owner has no live lease, or no row at all, may be adopted, so an
-- operator may delete the rows of nodes long gone. A foreign key would also check the node's row
-- at each later update of a game written twice in one transaction (a batch).

-- A node's games, for a handover or a join that releases them. 0001's index on owner_node alone
-- holds one key per node for all its games: every move (an update that is not HOT) then adds
-- its row's new version to one long posting list, split and logged again and again, which
-- halved the writes a node could commit. With the id in the key, each game has its own entry.
DROP INDEX games_by_owner;
CREATE INDEX games_by_owner ON games (owner_node, id) WHERE owner_node IS NOT NULL;

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
