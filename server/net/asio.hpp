#pragma once
// Internal to server/net: the Asio and Beast core types the sessions share. Only server/net/*.cpp
// include this (STYLE: Beast types stay inside the few files that need them); the headers others
// include (peer.hpp, runtime.hpp, server.hpp) stay free of Asio.

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/error.hpp>

namespace arbiter::server::net::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

}  // namespace arbiter::server::net::detail
