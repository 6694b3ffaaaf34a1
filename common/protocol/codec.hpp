#pragma once
/// \file
/// The one codec of the wire protocol, both directions: the server decodes what clients send and
/// encodes what it sends; a client (arbiter-cli, arbiter-load) encodes its requests and decodes
/// the server's messages. Decoders are strict and never throw: a bad frame is an error value.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/core/expected.hpp"
#include "common/protocol/messages.hpp"

namespace arbiter::protocol {

// ---- client -> server ---------------------------------------------------------------------

/// Parses one text frame strictly: a JSON object with a known "type", the fields of that type
/// with the right JSON types and ranges, nothing else (an unknown field is bad_request).
/// Never throws; every failure is a ProtocolError carrying the request id when readable.
Expected<ClientMessage, ProtocolError> decode(std::string_view text);

/// The JSON text of a client message (one line, UTF-8): the fields in the order of
/// schema/protocol.md, an optional field left out when it has its default, the id last.
/// decode() reads it back as the same message.
std::string encode(const ClientMessage& message);

// ---- server -> client ---------------------------------------------------------------------

/// The JSON text of a server message (one line, UTF-8).
std::string encode(const ServerMessage& message);

/// Shorthand for an error reply.
std::string encode_error(ErrorCode code, std::string_view message,
                         const std::optional<std::string>& id);

/// How a client names the variant of a game it follows, by game id; nullopt for a game it does
/// not know. Seats are named per variant ("white" or "red"), and `moved`, `offer`, `takeback`,
/// `presence` and `seat_lost` name seats without naming their variant: the client learnt it from
/// the `created`, `joined` or `state` that came before.
using VariantOfGame = std::function<std::optional<rules::Variant>(std::string_view game)>;

/// Parses one server frame strictly, the inverse of encode(ServerMessage): a JSON object with a
/// known "type", every field of that type present with its JSON type and range (those of the
/// schemas in schema/messages/server.*.json), nothing else; the request id wherever it stands.
/// Messages that carry their variant are read with it; the others with `variant_of` their game,
/// and refused as unknown_game when it gives none. Other refusals are bad_json (not a JSON
/// object), unknown_type and bad_request (a field), carrying the id when it could be read.
/// Never throws.
Expected<ServerMessage, ProtocolError> decode_server(std::string_view text,
                                                     const VariantOfGame& variant_of);

/// The requester's copy of a server message encoded without an id (encode() of a message with
/// no id, or SharedMessage::text()): `{"id":"...",` and the rest of `encoded`, the id escaped as
/// encode() escapes it. A node that relays another node's event to the connection whose request
/// made it uses this, without decoding the event.
std::string requester_copy(std::string_view encoded, std::string_view id);

/// A server message encoded once for every connection that gets it (a game event, the lobby
/// list): its text without a request id, which their send queues share, and the requester's copy
/// with the id in front of the same text, made without encoding the body again.
class SharedMessage {
  public:
    /// Encodes `body` without an id.
    explicit SharedMessage(const ServerBody& body);

    /// The text everyone but the requester gets.
    const std::shared_ptr<const std::string>& text() const noexcept { return text_; }
    /// The requester's copy: `{"id":"...",` and the rest of text() (the request id first, as
    /// the server has always written it there).
    std::shared_ptr<const std::string> with_id(std::string_view id) const;
    /// with_id() when there is an id, else text().
    std::shared_ptr<const std::string> for_request(const std::optional<std::string>& id) const;

  private:
    std::shared_ptr<const std::string> text_;
};

}  // namespace arbiter::protocol
