#pragma once
/// \file
/// The cluster's bus wire format (issue 43): what one node puts on the bus for another. Eight
/// closed kinds, each with one encode and one strict decode. Four travel on the receiving node's
/// inbox channel, `inbox:<node>`:
/// - Intent: a player's request that the node holding the connection (the holder) forwards to
///   the game's owner, with who the connection is (its name, its account);
/// - Delivery: one message the owner sends to that connection, back to its holder;
/// - NotOwner: the owner no longer has the game; the request comes back to be routed again;
/// - Hangup: a forwarded connection ends: the holder's connection closed (to the owner), or the
///   owner closes it (to the holder).
/// Four are broadcasts, on `cluster:all`, which every node subscribes: what one node changed in
/// the state every node keeps in memory (server/app/cluster_fanout.hpp):
/// - AccountChanged: a sign-up, sign-in, sign-out, password change or deletion committed;
/// - RatingChanged: a rated game's end committed: a player's new rating;
/// - ListingChanged: one of the node's games entered or left the lobby;
/// - ListingsOf: every open game the node lists now (sent now and then, to heal lost changes).
/// An inbox kind on the broadcast channel, or a broadcast kind on an inbox, is refused.
///
/// Layout (little-endian, no padding): byte 0 the format version (2), byte 1 the kind, then the
/// fields of that kind in declaration order. An integer is 8 bytes (a flag or a small enum too,
/// checked against its range; a double its IEEE-754 bits); a text is a 4-byte length and its
/// bytes; an array its elements. Nothing may follow the last field. Every length is bounded (below)
/// before anything is allocated, so decode() of any bytes returns a value or an EnvelopeError,
/// never a crash, and never allocates more than the input allows.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <variant>

#include "common/core/cluster_id.hpp"
#include "common/core/expected.hpp"

namespace arbiter::server::cluster {

/// A connection on its holder node (meaningful only with the holder's id and incarnation).
using ConnectionId = std::uint64_t;

/// The longest node or game id a node accepts.
inline constexpr std::size_t kMaxIdBytes = kMaxClusterIdBytes;
/// The longest encoded protocol message an envelope carries (the server's frame limit is far
/// below; a record of a long game is the largest message).
inline constexpr std::size_t kMaxMessageBytes = std::size_t{1} << 20;
/// The longest player name or username an envelope carries.
inline constexpr std::size_t kMaxNameBytes = 256;
/// The longest close reason (RFC 6455 allows 123 bytes).
inline constexpr std::size_t kMaxReasonBytes = 123;
/// A session token's hash as AccountChanged carries it: SHA-256 in lowercase hex.
inline constexpr std::size_t kTokenHashBytes = 64;
/// The rating pools' speeds (app::RatedSpeed: bullet, blitz, rapid, classical) and variants
/// (rules::Variant: chess, xiangqi, draughts), as indexes.
inline constexpr std::uint64_t kRatedSpeeds = 4;
inline constexpr std::uint64_t kVariants = 3;
/// How many times one request may be routed again after a NotOwner before it is refused.
inline constexpr std::uint64_t kMaxHops = 3;

/// The node a connection is on, in one run of it: a restarted node's connection ids start over.
struct Holder {
    std::string node;
    std::uint64_t incarnation = 0;
    ConnectionId connection = 0;
    friend bool operator==(const Holder&, const Holder&) = default;
    /// An order for maps (a defaulted <=> trips clang-tidy 14's modernize-use-nullptr).
    friend bool operator<(const Holder& a, const Holder& b) {
        return std::tie(a.node, a.incarnation, a.connection) <
               std::tie(b.node, b.incarnation, b.connection);
    }
};

/// A player's request, forwarded by its holder to the game's owner.
struct Intent {
    Holder from;
    std::string game;
    std::uint64_t hops = 0;     ///< times it came back NotOwner and was routed again
    std::string player_name;    ///< the connection's name (hello), "" for none
    std::uint64_t user_id = 0;  ///< the account it is signed in as; 0: a guest
    std::string username;       ///< that account's name ("" for a guest)
    /// The connection's round trip as its holder's pings last measured it, in microseconds (0:
    /// none yet), for lag compensation on the owner (protocol.md, "Lag compensation").
    std::uint64_t round_trip_us = 0;
    /// Whether the connection still answers its holder's pings (net::Peer::responsive).
    bool responsive = true;
    std::string message;  ///< the ClientMessage as protocol::encode wrote it
    friend bool operator==(const Intent&, const Intent&) = default;
};

/// One message for a forwarded connection, from the owner to its holder.
struct Delivery {
    std::string from_node;  ///< the owner
    ConnectionId connection = 0;
    std::string message;  ///< a ServerMessage as protocol::encode wrote it
    friend bool operator==(const Delivery&, const Delivery&) = default;
};

/// The node an Intent reached does not own its game: the request goes back to be routed again.
struct NotOwner {
    std::string from_node;
    ConnectionId connection = 0;
    std::string game;
    std::uint64_t hops = 0;  ///< the Intent's
    std::string message;     ///< the Intent's
    friend bool operator==(const NotOwner&, const NotOwner&) = default;
};

/// A forwarded connection ends.
struct Hangup {
    std::string from_node;
    Holder connection;
    /// true: the holder's connection closed (holder to owner: leave every game it was in);
    /// false: the owner closes it (owner to holder: close with `code` and `reason`).
    bool closed_by_holder = true;
    std::uint64_t code = 1000;  ///< a WebSocket close code
    std::string reason;
    friend bool operator==(const Hangup&, const Hangup&) = default;
};

/// Which change of the accounts' directory (app::AccountDirectory) an AccountChanged is.
enum class AccountChange : std::uint8_t {
    signed_up = 1,             ///< `username` is registered
    signed_in = 2,             ///< a session of `user_id` (`username`) hashing to `token_hash`
    signed_out = 3,            ///< the session hashing to `token_hash` ended
    other_sessions_ended = 4,  ///< every session of `user_id` ended but `token_hash`'s ("": all)
    account_deleted = 5,       ///< the account `user_id` is deleted
};

/// A change of the accounts that a node committed. A session travels as its token's hash, never
/// as its token. Fields a change does not use are 0 or "".
struct AccountChanged {
    std::string from_node;
    AccountChange change = AccountChange::signed_up;
    std::uint64_t user_id = 0;
    std::string username;
    std::string token_hash;  ///< "" or kTokenHashBytes of lowercase hex
    friend bool operator==(const AccountChanged&, const AccountChanged&) = default;
};

/// One player's standing in one pool after a rated game (app::PoolRating). The numbers are
/// IEEE-754 doubles, sent as their bits; decode() refuses non-finite ones.
struct RatingEntry {
    std::uint64_t user_id = 0;  ///< 1 .. INT64_MAX
    double rating = 0;
    double deviation = 0;
    double volatility = 0;
    std::uint64_t games = 0;       ///< rated games in the pool, this one included
    std::uint64_t updated_ms = 0;  ///< Unix ms of that game's end
    friend bool operator==(const RatingEntry&, const RatingEntry&) = default;
};

/// A rated game's end committed: one player's rating in its pool, as it was stored.
struct RatingChanged {
    std::string from_node;
    std::uint64_t variant = 0;  ///< rules::Variant as an index, below kVariants
    std::uint64_t speed = 0;    ///< app::RatedSpeed as an index, below kRatedSpeeds
    RatingEntry entry;
    friend bool operator==(const RatingChanged&, const RatingChanged&) = default;
};

/// One of `from_node`'s games entered the lobby or changed there (`open`: `summary` is an
/// encoded protocol `lobby` message listing that game alone), or left it (`summary` is "").
struct ListingChanged {
    std::string from_node;
    std::string game;
    bool open = false;
    std::string summary;
    friend bool operator==(const ListingChanged&, const ListingChanged&) = default;
};

/// Every game `from_node` lists now (its newest, up to what the receivers keep of one node), as
/// an encoded protocol `lobby` message: it replaces what the receivers held of that node.
struct ListingsOf {
    std::string from_node;
    std::string listings;
    friend bool operator==(const ListingsOf&, const ListingsOf&) = default;
};

/// Any envelope.
using Envelope = std::variant<Intent, Delivery, NotOwner, Hangup, AccountChanged, RatingChanged,
                              ListingChanged, ListingsOf>;

/// Whether `envelope` is a broadcast kind (it travels on broadcast_channel(), not an inbox).
bool is_broadcast(const Envelope& envelope) noexcept;
/// The node a broadcast comes from (its `from_node`); "" for an inbox kind.
std::string_view broadcast_sender(const Envelope& envelope) noexcept;

/// Why bytes were refused as an envelope, for the log (the counters count them).
struct EnvelopeError {
    std::string reason;
    friend bool operator==(const EnvelopeError&, const EnvelopeError&) = default;
};

/// The bytes of an envelope. Its ids and texts must be within the bounds above (asserted: the
/// node builds them from its own checked values).
std::string encode(const Envelope& envelope);

/// Reads `bytes` strictly: a known version and kind, every field present and within its bounds,
/// ids well-formed (valid_id), nothing after the last field.
Expected<Envelope, EnvelopeError> decode(std::string_view bytes);

/// An id of a node or a game as the cluster accepts it (common/core/cluster_id.hpp), so that it
/// can stand in a channel name.
bool valid_id(std::string_view id) noexcept;

/// `inbox:<node>`: where every inbox envelope for `node` goes.
std::string inbox_channel(std::string_view node);

/// `cluster:all`: where every broadcast goes; every node subscribes it.
std::string_view broadcast_channel() noexcept;

}  // namespace arbiter::server::cluster
