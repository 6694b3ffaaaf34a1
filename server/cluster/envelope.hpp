#pragma once
/// \file
/// The cluster's bus wire format (issue 43): what one node puts on the bus for another. Three
/// closed kinds, each with one encode and one strict decode:
/// - Intent: a player's message forwarded by a non-owner node to the owner, on `inbox:<owner>`;
/// - Answer: the owner's direct reply to one Intent, on `inbox:<sender>`;
/// - Event: a committed game event, on `game:<id>`, for the nodes that have viewers of the game.
///
/// Layout (little-endian, no padding): byte 0 the format version (1), byte 1 the kind, then the
/// fields of that kind in declaration order. An integer is 8 bytes; a text is a 4-byte length and
/// its bytes; a list of texts is a 4-byte count and the texts. Nothing may follow the last field.
/// Every length is bounded (below) before anything is allocated, so decode() of any bytes returns
/// a value or an EnvelopeError, never a crash, and never allocates more than the input allows.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/core/cluster_id.hpp"
#include "common/core/expected.hpp"

namespace arbiter::server::cluster {

/// A connection on its own node (node-local: meaningful only together with the node id).
using ConnectionId = std::uint64_t;

/// The longest node or game id a node accepts.
inline constexpr std::size_t kMaxIdBytes = kMaxClusterIdBytes;
/// The longest encoded protocol message an envelope carries (the server's frame limit is far
/// below; a record of a long game is the largest message).
inline constexpr std::size_t kMaxMessageBytes = std::size_t{1} << 20;
/// The most messages one Answer carries.
inline constexpr std::size_t kMaxAnswerMessages = 16;

/// A player's message forwarded to the owner of its game.
struct Intent {
    std::string from_node;        ///< the node holding the player's connection; answers go there
    ConnectionId connection = 0;  ///< the player's connection on `from_node`
    std::uint64_t attempt = 0;    ///< the sender's id for this intent, the same on every retry
    std::string game;
    std::string message;  ///< the ClientMessage as protocol::encode wrote it
    friend bool operator==(const Intent&, const Intent&) = default;
};

/// How the owner dealt with an Intent.
enum class AnswerKind : std::uint8_t {
    replied = 1,    ///< `messages` are for the connection (an ack, a refusal, an error)
    not_owner = 2,  ///< this node does not own the game; `owner_node`/`owner_epoch` as it knows
};

/// The owner's reply to one Intent, to the node that sent it.
struct Answer {
    std::string from_node;  ///< the node answering
    ConnectionId connection = 0;
    std::uint64_t attempt = 0;
    std::string game;
    AnswerKind kind = AnswerKind::replied;
    std::string owner_node;         ///< not_owner: the owner the answering node knows ("" if none)
    std::uint64_t owner_epoch = 0;  ///< not_owner: its epoch (0 if none)
    std::vector<std::string> messages;  ///< replied: ServerMessages as protocol::encode wrote them
    friend bool operator==(const Answer&, const Answer&) = default;
};

/// One committed game event, as its owner published it.
struct Event {
    std::string game;
    std::uint64_t seq = 0;
    std::string owner_node;
    std::uint64_t owner_epoch = 0;
    std::string message;  ///< the ServerMessage (a game event) as protocol::encode wrote it
    /// The forwarded Intent that made this event, if one did ("" and 0 otherwise): its sender
    /// settles that intent on seeing the event, even when the Answer was lost.
    std::string cause_node;
    std::uint64_t cause_attempt = 0;
    friend bool operator==(const Event&, const Event&) = default;
};

/// Any envelope.
using Envelope = std::variant<Intent, Answer, Event>;

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

/// `inbox:<node>`: where the intents for `node`, and the answers to its intents, go.
std::string inbox_channel(std::string_view node);
/// `game:<id>`: where the events of `game` go.
std::string game_channel(std::string_view game);
/// The game of a `game:<id>` channel; empty for any other channel.
std::string_view game_of_channel(std::string_view channel) noexcept;

}  // namespace arbiter::server::cluster
