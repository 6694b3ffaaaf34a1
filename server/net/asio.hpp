#pragma once
// Internal to server/net: the Asio and Beast core types the sessions share. Only server/net/*.cpp
// include this (STYLE: Beast types stay inside the few files that need them); the headers others
// include (peer.hpp, runtime.hpp, server.hpp) stay free of Asio.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core/error.hpp>

namespace arbiter::server::net::detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

/// Every connection runs on a strand of one network thread's io_context. Its socket names that
/// executor type rather than the type-erased any_io_executor: each read and write copies, tracks
/// and destroys its executor, and through any_io_executor that was ~8 % of the network threads'
/// samples (50 games at NORMAL, bench/load/README.md). Named, it costs a move 6 % fewer
/// instructions.
using Strand = asio::strand<asio::io_context::executor_type>;
using Socket = asio::basic_stream_socket<tcp, Strand>;

}  // namespace arbiter::server::net::detail
