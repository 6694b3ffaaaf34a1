#pragma once
/// \file
/// A small blocking WebSocket client for ws:// URLs: connect, send text, take the next message
/// with a timeout, close. Boost.Beast stays inside ws_client.cpp, so users of this header (the
/// terminal client, the load benchmark) compile no Asio. Reconnecting is calling connect() again.

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "common/core/expected.hpp"

namespace arbiter::client {

/// The parts of a ws:// URL.
struct WsUrl {
    std::string host;
    std::string port;    ///< "80" when the URL names none
    std::string target;  ///< the path, "/ws" when the URL names none
};

/// Parses `ws://HOST[:PORT][/PATH]`; a URL without a path gets the protocol's `/ws`.
Expected<WsUrl, std::string> parse_ws_url(std::string_view url);

/// What next_message() found.
enum class ReceiveStatus {
    message,  ///< `text` holds one complete text frame
    timeout,  ///< nothing arrived in time; the connection is still open
    closed,   ///< the connection is closed (`text` says why); connect() again to go on
};

/// One result of next_message().
struct Received {
    ReceiveStatus status = ReceiveStatus::timeout;
    std::string text;
    /// `closed` by the server: its close code (1009: a frame we sent was over its size limit);
    /// 0 when the connection ended otherwise.
    int close_code = 0;
};

/// One WebSocket connection at a time, used from one thread (its I/O runs on a thread of its
/// own). Messages that arrived before a close are still handed out, in order, before `closed`.
class WsClient {
  public:
    /// With nothing heard for this long (its pings unanswered), the connection counts as lost.
    static constexpr std::chrono::seconds kSilentServer{5};

    WsClient();
    ~WsClient();  // NOLINT(bugprone-exception-escape): see ws_client.cpp
    WsClient(const WsClient&) = delete;
    WsClient& operator=(const WsClient&) = delete;

    /// Opens a connection (closing any previous one): TCP connect and WebSocket handshake, both
    /// within `timeout`. The error says what failed.
    Expected<void, std::string> connect(std::string_view url, std::chrono::milliseconds timeout);
    /// Queues one text frame; frames go out in the order sent. Fails when not connected.
    Expected<void, std::string> send(std::string text);
    /// Waits up to `timeout` for the next incoming message.
    Received next_message(std::chrono::milliseconds timeout);
    /// Closes the connection with close code 1000 and waits (briefly) for the close handshake.
    void close();
    /// True while connected and not closed by either side.
    bool is_open() const;

  private:
    struct Connection;
    std::shared_ptr<Connection> connection_;
};

}  // namespace arbiter::client
